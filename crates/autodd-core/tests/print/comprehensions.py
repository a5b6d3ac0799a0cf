[x for x in y]
[x for x in y if x]
[x for x in y if x if not x]
[x for x in y for z in x]
[x for x in y if x for z in x if z]
[(x, y) for x, y in z]
[x for x, in z]
[x for (x, y) in z]
[x for x in (1, 2)]
[x for x in (lambda: y)()]
[x for x in (a if b else c)]
[x for x in y if (a if b else c)]
[x for x in y if (lambda: 1)]
[x for x in a or b]
[x for x in not a]
[(yield) for x in y]
[a if b else c for x in y]
[lambda: x for x in y]
[(x := 1) for y in z]
{x for x in y}
{x: y for x, y in z}
{x: (y for y in x) for x in z}
(x for x in y)
(x for x in y for z in x)
list(x for x in y)
sum((x for x in y), start)
async def f():
    [x async for x in y]
    [x async for x in y for z in x]
    [await x for x in y]
    {x async for x in y if await x}
    (x async for x in y)
[x for x in [y for y in z]]
a[1]
a[1:2]
a[:]
a[::]
a[1:]
a[:2]
a[::2]
a[1:2:3]
a[1:2, 3]
a[1:2, ::3]
a[..., 1]
a[:, None]
a[x, y]
a[(x, y)]
a[x,]
a[()]
a[lambda: 1]
a[(lambda: 1):]
a[x if y else z:]
a[b][c]
a.b[c].d(e)[f]
a[-1]
a[b:c][d:e]
a[1:2,]
a[*b]
a[*b, c]
x = {}
x = {1: 2}
x = {1: 2, **y}
x = {1}
x = {1,}
x = {*a}
x = []
x = [1]
x = [1,]
x = [[]]
x = [*a, *b]
x = (*a, *b)
x = *a,
x = f(*a)
x = f(*a, *b)
x = f(**a, **b)
x = f(a, *b, c=1, **d)
x = f(c=1, *b)
x = f(*a or b)
