"""Geometry primitives for the canvas of a small vector-drawing editor.

`Point` is an immutable value type with arithmetic dunders; `Rect`, `Circle` and
`Polygon` are shapes with validated properties, alternative constructors, value
equality, hashing and containment tests; `Canvas` is an ordered collection of
shapes that supports `len`, iteration, `in`, and `+` (merge with deduplication).

Bug report: pasting the clipboard into a drawing duplicates a rectangle that the
user had drawn from its bottom-right to its top-left corner, although the editor
shows both copies as equal (`==` is True). The canvas audit at the end raises
CanvasError with the number of distinct shapes it found.
"""

import math
from functools import total_ordering


class CanvasError(Exception):
    pass


@total_ordering
class Point:
    __slots__ = ("_x", "_y")

    def __init__(self, x, y):
        self._x = x
        self._y = y

    x = property(lambda self: self._x)
    y = property(lambda self: self._y)

    @classmethod
    def origin(cls):
        return cls(0, 0)

    def __iter__(self):
        yield self._x
        yield self._y

    def __add__(self, other):
        return Point(self._x + other.x, self._y + other.y)

    def __sub__(self, other):
        return Point(self._x - other.x, self._y - other.y)

    def __mul__(self, factor):
        return Point(self._x * factor, self._y * factor)

    __rmul__ = __mul__

    def __abs__(self):
        return math.hypot(self._x, self._y)

    def __eq__(self, other):
        if not isinstance(other, Point):
            return NotImplemented
        return (self._x, self._y) == (other.x, other.y)

    def __hash__(self):
        return hash((self._x, self._y))

    def __lt__(self, other):
        return tuple(self) < tuple(other)

    def __repr__(self):
        return f"Point({self._x}, {self._y})"


@total_ordering
class Shape:
    kind = "shape"

    def __init__(self, label=""):
        self.label = label

    @property
    def area(self):
        raise NotImplementedError

    def __lt__(self, other):
        return self.area < other.area

    def __repr__(self):
        return f"<{self.kind} {self.label or '?'} area={self.area:g}>"


class Rect(Shape):
    kind = "rect"

    def __init__(self, corner, opposite, label=""):
        super().__init__(label)
        self.p1 = corner
        self.p2 = opposite

    @classmethod
    def from_size(cls, origin, width, height, label=""):
        return cls(origin, origin + Point(width, height), label)

    @staticmethod
    def bounding(points):
        xs = [p.x for p in points]
        ys = [p.y for p in points]
        return Rect(Point(min(xs), min(ys)), Point(max(xs), max(ys)))

    @property
    def low(self):
        return Point(min(self.p1.x, self.p2.x), min(self.p1.y, self.p2.y))

    @property
    def high(self):
        return Point(max(self.p1.x, self.p2.x), max(self.p1.y, self.p2.y))

    @property
    def width(self):
        return self.high.x - self.low.x

    @width.setter
    def width(self, value):
        self.p1, self.p2 = self.low, Point(self.low.x + value, self.high.y)

    @property
    def height(self):
        return self.high.y - self.low.y

    @height.setter
    def height(self, value):
        self.p1, self.p2 = self.low, Point(self.high.x, self.low.y + value)

    @property
    def area(self):
        return self.width * self.height

    def __contains__(self, point):
        return self.low.x <= point.x <= self.high.x and self.low.y <= point.y <= self.high.y

    def __eq__(self, other):
        if not isinstance(other, Rect):
            return NotImplemented
        return (self.low, self.high) == (other.low, other.high)

    def __hash__(self):
        return hash((self.p1, self.p2))


class Circle(Shape):
    kind = "circle"

    def __init__(self, center, radius, label=""):
        super().__init__(label)
        self.center = center
        self.radius = radius

    @property
    def radius(self):
        return self._radius

    @radius.setter
    def radius(self, value):
        if value <= 0:
            raise ValueError(f"radius must be positive, got {value}")
        self._radius = value

    @property
    def diameter(self):
        return 2 * self._radius

    @diameter.setter
    def diameter(self, value):
        self.radius = value / 2

    @property
    def area(self):
        return math.pi * self._radius ** 2

    def __contains__(self, point):
        return abs(point - self.center) <= self._radius

    def __eq__(self, other):
        if not isinstance(other, Circle):
            return NotImplemented
        return self.center == other.center and self._radius == other.radius

    def __hash__(self):
        return hash(("circle", self.center, self._radius))


class Polygon(Shape):
    kind = "polygon"

    def __init__(self, *vertices, label=""):
        super().__init__(label)
        if len(vertices) < 3:
            raise ValueError("a polygon needs three vertices")
        self.vertices = tuple(vertices)

    def __len__(self):
        return len(self.vertices)

    def __iter__(self):
        return iter(self.vertices)

    def __getitem__(self, index):
        return self.vertices[index % len(self.vertices)]

    @property
    def area(self):
        twice = sum(a.x * b.y - b.x * a.y for a, b in zip(self, self.vertices[1:] + self.vertices[:1]))
        return abs(twice) / 2

    def __contains__(self, point):
        inside = False
        for i, a in enumerate(self):
            b = self[i + 1]
            if (a.y > point.y) != (b.y > point.y):
                cross_x = a.x + (point.y - a.y) * (b.x - a.x) / (b.y - a.y)
                inside ^= point.x < cross_x
        return inside

    def _rotations(self):
        n = len(self)
        return {self.vertices[i:] + self.vertices[:i] for i in range(n)}

    def __eq__(self, other):
        if not isinstance(other, Polygon):
            return NotImplemented
        return other.vertices in self._rotations()

    def __hash__(self):
        return hash(("polygon", frozenset(self.vertices)))


class Canvas:
    def __init__(self, shapes=()):
        self._shapes = list(dict.fromkeys(shapes))

    def __len__(self):
        return len(self._shapes)

    def __iter__(self):
        return iter(self._shapes)

    def __contains__(self, shape):
        return shape in set(self._shapes)

    def __add__(self, other):
        return Canvas([*self, *other])


def self_checks():
    p = Point(3, 4)
    assert abs(p) == 5 and 2 * p == p * 2 == Point(6, 8)
    assert list(p + Point.origin()) == [3, 4] and sorted([p, Point(1, 9)])[0] == Point(1, 9)
    r = Rect.from_size(Point(1, 1), 4, 2, label="r")
    r.width = 6
    r.height = 3
    assert (r.width, r.height, r.area) == (6, 3, 18) and Point(7, 4) in r and Point(8, 4) not in r
    assert Rect.bounding([Point(2, 5), Point(-1, 3), Point(4, 0)]) == Rect(Point(-1, 0), Point(4, 5))
    c = Circle(Point(0, 0), 1)
    c.diameter = 10
    assert c.radius == 5 and Point(3, 4) in c and Point(4, 4) not in c
    tri = Polygon(Point(0, 0), Point(4, 0), Point(0, 3))
    assert tri.area == 6 and len(tri) == 3 and Point(1, 1) in tri and Point(3, 2) not in tri
    assert Polygon(Point(4, 0), Point(0, 3), Point(0, 0)) == tri
    assert sorted([c, r, tri])[0] is tri


def main():
    self_checks()
    drawing = Canvas([
        Rect(Point(0, 0), Point(40, 30), label="header"),
        Circle(Point(20, 60), 8, label="logo"),
        Polygon(Point(50, 0), Point(70, 0), Point(60, 20), label="arrow"),
        Rect.from_size(Point(0, 80), 100, 20, label="footer"),
    ])
    clipboard = Canvas([
        Polygon(Point(60, 20), Point(50, 0), Point(70, 0), label="arrow copy"),
        Rect(Point(40, 30), Point(0, 0), label="header copy"),
        Circle(Point(90, 40), 5, label="badge"),
        Circle(Point(20, 60), 8, label="logo copy"),
    ])
    merged = drawing + clipboard
    print(f"drawing: {len(drawing)} shapes, clipboard: {len(clipboard)} shapes")
    for shape in sorted(merged):
        print(f"  {shape!r}")
    for shape in clipboard:
        print(f"  {shape.label}: already drawn = {shape in drawing}")
    expected = len(drawing) + sum(1 for s in clipboard if not any(s == d for d in drawing))
    if len(merged) != expected:
        raise CanvasError(f"canvas holds {len(merged)} distinct shapes, expected {expected}")
    print("canvas ok")


if __name__ == "__main__":
    main()
