for i in range(3):  # autodd: freeze
    print(i)
if cond:
    keep()  # autodd: freeze
    drop()
if c: f()  # autodd: freeze
for i in range(2): g(i); h(i)  # autodd: freeze
