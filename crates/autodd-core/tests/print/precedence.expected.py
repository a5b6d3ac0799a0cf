-x ** 2
(-x) ** 2
x ** -y
x ** y ** z
(x ** y) ** z
--x
--x
+x
~x ** 2
(~x) ** 2
2 ** -1
(-1) ** 2
-1 ** 2
await_ = (-1).real
1 .real
1 .real
1.5.real
1j.imag
a + b * c
(a + b) * c
a - (b - c)
a - b - c
a / (b * c)
a // b % c
a @ b
a << b >> c
a | b ^ c & d
(a | b) ^ c
a & (b | c)
not a
not not a
not (a and b)
not a and b
a and b or c
a and (b or c)
(a or b) and c
(a or b) or c
a or (b or c)
(a and b) and c
a < b < c
(a < b) < c
a < (b < c)
a == b != c is d is not e in f not in g
not a == b
(not a) == b
a < (not b)
a if b else c
(a if b else c) if d else e
a if (b if c else d) else e
a if b else c if d else e
lambda: a if b else c
(lambda: a) if b else c
(x := 1)
if x := f():
    pass
while (y := g()) is not None:
    pass
if x := f():
    pass
print((x := 1))
[(y := f(x)), y ** 2]
a[(x := 1)]
f(lambda: (x := 1))
def gen():
    yield
    yield x
    yield x, y
    x = yield
    x = yield y
    x += yield
    x = yield from y
    f((yield))
    return (yield)
    await_((yield x))
    (yield), 1
    y = (yield), 1
    z = [(yield)]
    yield (yield)
    lambda: (yield)
async def coro():
    await x
    await (await x)
    (await x).y
    await x ** 2
    -await x
    await (-x)
    return [await y for y in z]
x = 1, 2
x = ()
x = (1,)
x = (1,)
x = (1, 2), 3
return_ = ((1, 2),)
for x, y in z:
    pass
for (x, y), w in z:
    pass
for x in 1, 2:
    pass
for x in (yield_ := 1), 2:
    pass
a[1, 2]
a[1, 2]
a[(1, 2), 3]
a[()]
a[1,]
f((1, 2))
f(x for x in y)
f(x for x in y)
f((x for x in y), 1)
def r():
    return 1, 2
def s():
    return *a, b
x, *y = z
*x, y = z
[x, *y] = z
x = *a, *b
print(*a, **k)
print(*(a or b), **(c or d))
f(a, *b, c, *d, e=1, **f)
f(a, *b, e=1)
{**a, 'b': 1, **{'c': 2}}
[*a, *b]
{*a, *b}
