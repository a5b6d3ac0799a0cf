match x:
    case 1:
        pass
    case -1:
        pass
    case 1.5:
        pass
    case -1.5j:
        pass
    case 1 + 2j:
        pass
    case -1 - 2j:
        pass
    case 'string':
        pass
    case b'bytes':
        pass
    case 'implicitconcat':
        pass
    case None:
        pass
    case True:
        pass
    case False:
        pass
    case a.b:
        pass
    case a.b.c:
        pass
    case name:
        pass
    case _:
        pass
match x:
    case [1, 2]:
        pass
    case [1, 2]:
        pass
    case [1, 2]:
        pass
    case []:
        pass
    case []:
        pass
    case [x]:
        pass
    case [x]:
        pass
    case [1, *rest]:
        pass
    case [*_, last]:
        pass
    case {'key': value}:
        pass
    case {}:
        pass
    case {'a': 1, **rest}:
        pass
    case {1: _, a.b: [x, y]}:
        pass
    case Point():
        pass
    case Point(1, 2):
        pass
    case Point(x=1, y=2):
        pass
    case Point(1, y=2):
        pass
    case mod.Point(x=[1, 2], y={'a': b}):
        pass
    case 1 | 2 | 3:
        pass
    case 1 | 2 as x:
        pass
    case 1 | 2 as x:
        pass
    case [1 | 2, (3 as y) | 4]:
        pass
    case (1 as a) as b:
        pass
    case [a, b] as c if c:
        pass
    case x if x > 0:
        pass
    case x if (y := x):
        pass
    case str() | bytes():
        pass
match (x, y):
    case [a, b]:
        pass
match (x, y):
    case _:
        pass
match (x,):
    case _:
        pass
match -x:
    case _:
        pass
match (*a, b):
    case _:
        pass
match = 1
match.attr = 2
match(x)
case = 3
