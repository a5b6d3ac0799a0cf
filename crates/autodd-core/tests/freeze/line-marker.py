import sys
x = compute(1)  # autodd: freeze
y = 2; z = 3  # autodd: freeze
w = 4
