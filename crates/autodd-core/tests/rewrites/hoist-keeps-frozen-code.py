def h():
    for i in range(3):
        keep(i)  # autodd: freeze
        if i:
            raise ValueError('x')
    while True:
        if h:
            return 2
