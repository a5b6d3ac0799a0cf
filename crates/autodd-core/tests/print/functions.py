def f():
    pass
def f(a):
    pass
def f(a, b):
    pass
def f(a=1, b=2):
    pass
def f(a, /):
    pass
def f(a, b=1, /, c=2):
    pass
def f(a, /, b, *, c):
    pass
def f(*, a):
    pass
def f(*, a=1, b):
    pass
def f(*args):
    pass
def f(**kwargs):
    pass
def f(*args, **kwargs):
    pass
def f(a, b=1, /, c=2, *args, d, e=3, **kwargs):
    pass
def f(a: int, b: str = 'x', *args: int, c: bool = True, **kwargs: dict) -> None:
    pass
def f(a: 'forward', b: list[int] = []) -> 'Return':
    pass
def f(a: (int, str)) -> (int, str):
    pass
def f(a: lambda: 1 = lambda: 2):
    pass
def f(a=(yield_)):
    pass
def f(a: int=1, *, b: int=2):
    pass
def f(*args: *Ts):
    pass
async def f(a, *, b):
    await a
def f() -> lambda: 1:
    pass
lambda: 0
lambda a: a
lambda a, b: a + b
lambda a=1, b=2: a
lambda a, /, b: a
lambda *args, **kwargs: args
lambda *, a: a
lambda *, a=1: a
lambda a=lambda: 1: a
lambda: (yield)
lambda: lambda: 1
lambda: (x := 1)
lambda x: (x, x)
x = lambda: 1
f(lambda: 1, key=lambda x: x)
(lambda: 1)()
(lambda: 1).attr
lambda: 1 if x else 2
(lambda: 1) if x else 2
a or (lambda: 1)
x = [lambda: i for i in range(3)]
