"""Freeze markers for autodd.

autodd never changes code marked frozen::

    from autodd import __freeze__

    with __freeze__:
        setup()                  # kept verbatim

    x = __freeze__(make_x())     # the expression is kept verbatim

At run time the marker does nothing: `with __freeze__:` runs its body and
`__freeze__(x)` returns `x`, so a program keeps its behaviour with or without it.
"""

__all__ = ["__freeze__"]


class _Freeze:
    """Both a do-nothing context manager and the identity function."""

    __slots__ = ()

    def __enter__(self):
        return None

    def __exit__(self, exc_type, exc, tb):
        return False

    def __call__(self, value):
        return value

    def __repr__(self):
        return "__freeze__"


__freeze__ = _Freeze()
