@dec1
@dec2(arg)
class C(Base, Mixin, metaclass=Meta):
    pass
f(a, *b, c)
t = (1, 2)
l = [x]
s = {1, 2}
one = {3}
