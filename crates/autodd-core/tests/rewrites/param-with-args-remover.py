def command(name, nargs, *, doc=None):
    pass
command('add', 1)
command('take', 2, doc='t')
command(*spec)
class Shape:
    def __init__(self, name, sides):
        self.name = name
    def scaled(self, k, /, by=1):
        return k
    @staticmethod
    def make(kind, size):
        return kind
sq = Shape('sq', 4)
sq.scaled(2, by=3)
Shape.make('sq', 1)
class T:
    def gemm(a, b):
        return b
    def area(self, unit):
        return unit
    @classmethod
    def make(cls, size):
        return size
    @classmethod
    def build(cls, shape):
        return cls.area(shape, 'mm')
T.gemm(1, 2)
T.make(3)
T.area(sq, 'cm')
sq.area('m')
class Sub(T):
    pass
class Own(T):
    def area(self, unit, scale):
        return scale
Sub.area(sq, 'in')
Own.area(sq, 'ft', 2)
class Node:
    def __init__(self, op, arity):
        self.op = op
class Add(Node):
    pass
add = Add('+', 2)
class Mixin:
    def __init__(self, flag):
        self.flag = flag
class Both(Mixin, Node):
    pass
both = Both(True)
class Cond(T):
    if True:
        def area(self, unit):
            return unit
Cond.area(sq, 'x')
class Twice(T):
    pass
class Twice(Node):
    pass
Twice.area(sq, 'y')
class P:
    def __new__(cls, value, tag):
        return object.__new__(cls)
p = P(1, 't')
P.__new__(P, 2, 'u')
def unused(a, b):
    pass
apply = lambda f, x: f(x)
with __freeze__:
    frozen = lambda: command('frozen', 3)
