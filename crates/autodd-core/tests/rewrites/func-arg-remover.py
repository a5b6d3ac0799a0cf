def f(a, /, b, c=2, *args, d, e=5, **kwargs):
    pass
g = lambda x, y=1: x + y
