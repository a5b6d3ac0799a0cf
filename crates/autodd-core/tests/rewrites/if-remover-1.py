if a:
    b()
if c:
    d()
else:
    e()
def f():
    if g:
        return 1
