a = 1
# autodd: end-freeze
b = 2
