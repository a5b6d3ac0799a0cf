@dec1
@dec2(arg)
class C(Base, Mixin, metaclass=Meta):
    pass
f(a, *b, c)
t = (1, 2)
l = [x]
s = {1, 2}
one = {3}
evens = [n for n in range(9) if n % 2 if n > 2]
a = b = c = 0
ok = x and y or z
del p, q
d = {'a': 1, **extra, 'b': f(2)}
msg = f'got {n:>4} via {lines}!'
