def f(a, b=1):
    return a
def g(*args):
    pass
def h(args, *, key, **kw):
    pass
def full(*a, **k):
    pass
