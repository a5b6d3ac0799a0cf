'upper-case u prefix'
(x): int = 1
match (x,):
    case _:
        pass
