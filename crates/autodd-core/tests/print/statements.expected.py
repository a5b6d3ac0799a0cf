'Module docstring.'
import os
import os.path
import a.b.c as d, e
from os import path
from os import path as p, sep
from . import x
from . import x as y
from .. import z
from .mod import name
from ...pkg.mod import a as b
from os import *
from os import a, b
global_var = 1
def scope():
    global a, b
    x = 1
    def inner():
        nonlocal x
        x += 1
    return inner
@decorator
@decorator.attr(1, key=2)
@lambda f: f
@x[0]
@a.b.c
class Decorated(Base1, Base2, metaclass=Meta, **extra):
    attr: int
    other: str = 'default'
    obj.attr: int
    obj[0]: int = 1
    def method(self):
        pass
class Empty:
    pass
class Call:
    ...
class Star(*bases):
    pass
try:
    pass
except ValueError:
    pass
except (TypeError, KeyError) as e:
    pass
except:
    pass
else:
    pass
finally:
    pass
try:
    pass
finally:
    pass
try:
    pass
except* ValueError:
    pass
except* (TypeError, KeyError) as eg:
    pass
with a:
    pass
with a as b:
    pass
with a as b, c as d, e:
    pass
with a, b:
    pass
with (a, b) as c:
    pass
with yield_, b:
    pass
with a as (b, c):
    pass
with a as [b, c]:
    pass
with a as b.c, d as e[0]:
    pass
async def coro():
    async with a as b, c:
        pass
    async for x in y:
        pass
    else:
        pass
del a
del a, b
del (a, b)
del [a, b], c
del a.b, a[0], a[1:2]
assert x
assert x, 'message'
assert (x, 'tuple is always true')
raise
raise E
raise E('msg')
raise E from cause
raise E from None
if a:
    pass
elif b:
    pass
elif c:
    pass
else:
    pass
if a:
    pass
else:
    if b:
        pass
    x = 1
while True:
    break
else:
    pass
for i in range(10):
    continue
else:
    pass
x = y = z = 0
x += 1
x -= 1
x *= 1
x @= 1
x /= 1
x //= 1
x %= 1
x **= 1
x <<= 1
x >>= 1
x &= 1
x |= 1
x ^= 1
x.attr += 1
x[0] += 1
x += 1, 2
if True:
    pass
for x in y:
    pass
class A:
    x = 1
    y = 2
