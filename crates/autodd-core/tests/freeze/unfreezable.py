# autodd: freeze-start
"""The module's docstring."""
from __future__ import annotations
import sys
# autodd: end-freeze


def f():
    """f's docstring."""  # autodd: freeze
    return f.__doc__


class C:
    # autodd: freeze
    """C's docstring."""
    x = 1  # autodd: freeze


if C.x:
    "a string, not a docstring"  # autodd: freeze
# Autodd: freeze-end
