from tilelang.autodd import __freeze__
x = 1  # autodd: freeze
with __freeze__:
    y = 2
z = __freeze__(3)
