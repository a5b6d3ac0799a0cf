@dataclass
class Point(Base):
    x: float
    label: str = 'p'


def area(shape, scale):
    if shape.kind is None:
        return total(shape.w * shape.h, scale)
    match shape:
        case Square(side=s):
            return side
    items[k] = f'{shape.w:>{width}}'
    run(kind)
    n = count(kind)
