"""`from tilelang.autodd import __freeze__`: the same marker as `autodd.__freeze__`."""

from autodd import __freeze__

__all__ = ["__freeze__"]
