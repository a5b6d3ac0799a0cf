"""Module docstring."""
from __future__ import annotations
from __future__ import division
x: int = 1  # autodd: freeze
