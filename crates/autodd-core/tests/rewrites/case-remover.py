match op:
    case Op.PUSH:
        push()
    case Op.POP if ready:
        pop()
    case _:
        pass
match single:
    case 1:
        pass
