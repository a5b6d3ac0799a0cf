for i in range(3):  # autodd: freeze
    print(i)
if cond:
    keep()  # autodd: freeze
    drop()
