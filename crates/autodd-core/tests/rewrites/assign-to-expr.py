result = compute(x)
a = b = 1
