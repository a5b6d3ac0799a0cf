def f():
    # autodd: freeze
    a = 1
    b = 2
