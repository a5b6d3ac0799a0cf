import os
x = 1
def f(a):
    y = a + 1
    return y
pass
