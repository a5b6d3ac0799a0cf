a = 1  # AUTODD: FREEZE
b = 2  # autodd : freeze
# autodd: freeze-start
c = 3
# autodd: freeze-end
d = 4  # autodd: frozen
e = 5  # autodd: freeze
