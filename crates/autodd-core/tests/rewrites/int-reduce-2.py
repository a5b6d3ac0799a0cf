x = 128
y = 1
z = -7
w = 2 ** 100
b = True
