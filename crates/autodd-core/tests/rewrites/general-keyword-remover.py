f(a, key=1, **extra)
class C(Base, metaclass=Meta):
    pass
