"""Stand-in for `tilelang` when it is not installed, so that programs written
against `from tilelang.autodd import __freeze__` run under autodd anyway. autodd
puts this package on the path only when no real `tilelang` is importable."""
