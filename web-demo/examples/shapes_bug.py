"""A class hierarchy where `Square.__init__` forgets `super().__init__`, so
`Square(2).area()` fails with AttributeError: 'Square' object has no attribute 'width'.

Run: python3 shapes_bug.py
"""

import math


class Shape:
    registry = []

    def __init__(self, name):
        self.name = name
        Shape.registry.append(self)

    def area(self):
        raise NotImplementedError

    def describe(self):
        return f"{self.name}: area {self.area():.2f}"


class Circle(Shape):
    def __init__(self, radius):
        super().__init__("circle")
        self.radius = radius

    def area(self):
        return math.pi * self.radius**2


class Rect(Shape):
    def __init__(self, width, height, name="rect"):
        super().__init__(name)
        self.width = width
        self.height = height

    def area(self):
        return self.width * self.height


class Square(Rect):
    def __init__(self, side):
        # BUG: Rect.__init__ is never called, so width and height are never set.
        self.side = side
        self.name = "square"

    def perimeter(self):
        return 4 * self.side


def total_area(shapes):
    return sum(shape.area() for shape in shapes)


def main():
    shapes = [Circle(1.0), Rect(2, 3), Square(2)]
    for shape in shapes:
        print(shape.describe())
    print(f"total: {total_area(shapes):.2f}")


if __name__ == "__main__":
    main()
