x = compute(3)
y = 1
a = b = [1, 2]
n: int = len(items)
