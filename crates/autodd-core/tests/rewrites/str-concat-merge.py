name = "x"
message = "matmul " + f"{name} @ {name!r:>4}"
plain = "a" + 'b'
data = b"\x00" + b"\x01"
lead = f"{name}" + " tail"
both = f"{name}" + f"{name}"
mixed = "a" + 1
product = "a" + "b" * 3
