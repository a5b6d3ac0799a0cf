x = 1
with __freeze__:
    if a:
        b()
y = __freeze__(f(2))
def g():
    z = 3  # autodd: freeze
    return z
