y = f(g(x), 2)
h(*args)
print()
z = obj.method(a)(b)
