def f():
    a = 1
    # autodd: freeze-start
    b = 2
    c = 3
d = 4
