"""A class hierarchy of 2D shapes with abstract methods, properties, class methods,
`__slots__`, ordering and a registry filled by `__init_subclass__`.

Bug report: `Sector.area` converts degrees to radians twice, so the sorted report
lists the sector as the smallest shape; the check prints a WRONG line on stdout and
the program exits 0.
"""

import math
from abc import ABC, abstractmethod
from functools import total_ordering


@total_ordering
class Shape(ABC):
    registry = {}
    __slots__ = ("name",)

    def __init_subclass__(cls, code=None, **kwargs):
        super().__init_subclass__(**kwargs)
        if code:
            Shape.registry[code] = cls

    def __init__(self, name):
        self.name = name

    @property
    @abstractmethod
    def area(self): ...

    @property
    @abstractmethod
    def perimeter(self): ...

    def __eq__(self, other):
        return math.isclose(self.area, other.area)

    def __lt__(self, other):
        return self.area < other.area

    def __repr__(self):
        return f"{type(self).__name__}({self.name!r}, area={self.area:.2f})"

    @classmethod
    def parse(cls, spec):
        code, name, *nums = spec.split()
        return cls.registry[code](name, *map(float, nums))


class Polygon(Shape):
    __slots__ = ()

    def vertices(self):
        raise NotImplementedError

    @property
    def area(self):
        pts = self.vertices()
        s = sum(x1 * y2 - x2 * y1 for (x1, y1), (x2, y2) in zip(pts, pts[1:] + pts[:1]))
        return abs(s) / 2

    @property
    def perimeter(self):
        pts = self.vertices()
        return sum(math.dist(a, b) for a, b in zip(pts, pts[1:] + pts[:1]))


class Rect(Polygon, code="R"):
    __slots__ = ("w", "h")

    def __init__(self, name, w, h):
        super().__init__(name)
        self.w, self.h = w, h

    def vertices(self):
        return [(0, 0), (self.w, 0), (self.w, self.h), (0, self.h)]


class Square(Rect, code="S"):
    __slots__ = ()

    def __init__(self, name, side):
        super().__init__(name, side, side)


class Triangle(Polygon, code="T"):
    __slots__ = ("a", "b", "c")

    def __init__(self, name, a, b, c):
        super().__init__(name)
        if a + b <= c or a + c <= b or b + c <= a:
            raise ValueError(f"{name}: not a triangle")
        self.a, self.b, self.c = a, b, c

    def vertices(self):
        # Place side c on the x axis, solve for the apex.
        x = (self.b**2 + self.c**2 - self.a**2) / (2 * self.c)
        y = math.sqrt(max(self.b**2 - x * x, 0.0))
        return [(0.0, 0.0), (self.c, 0.0), (x, y)]


class Circle(Shape, code="C"):
    __slots__ = ("r",)

    def __init__(self, name, r):
        super().__init__(name)
        self.r = r

    @property
    def area(self):
        return math.pi * self.r**2

    @property
    def perimeter(self):
        return 2 * math.pi * self.r


class Sector(Circle, code="P"):
    __slots__ = ("degrees",)

    def __init__(self, name, r, degrees):
        super().__init__(name, r)
        self.degrees = degrees

    @property
    def radians(self):
        return math.radians(self.degrees)

    @property
    def area(self):
        return 0.5 * self.r**2 * math.radians(self.radians)

    @property
    def perimeter(self):
        return 2 * self.r + self.r * self.radians


SPECS = """
R door 1 2
S tile 1.5
T wedge 3 4 5
C coin 0.6
P pizza 3 90
S stamp 0.5
"""


def main():
    shapes = [Shape.parse(line) for line in SPECS.strip().splitlines()]
    for shape in sorted(shapes):
        print(f"{shape!r:<40} perimeter={shape.perimeter:.2f}")
    smallest = min(shapes)
    expected = "stamp"
    if smallest.name != expected:
        print("WRONG " + f"smallest shape: {smallest.name}, expected {expected}")
    total = sum(s.area for s in shapes)
    print(f"total area {total:.2f} over {len(shapes)} shapes")


main()
