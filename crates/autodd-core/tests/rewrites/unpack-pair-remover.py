tokens, pos, line = [], 0, 1
src, want = '2 ** 3 ** 2', 1
[a, b] = [f(x), g(y)]
first, *rest = 1, 2, 3
kind, value = m.lastgroup, m.group()
x, y = pair
k, v = __freeze__(1), 2
