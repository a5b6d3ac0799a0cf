class PriceError(Exception):
    pass
class Square(shapes.Rect):
    pass
class Kept(Base):
    x = 1
class Meta(Base, metaclass=M):
    pass
try:
    raise PriceError('bad')
except PriceError as e:
    print(isinstance(e, PriceError), Square(2))
with __freeze__:
    Square(3)
