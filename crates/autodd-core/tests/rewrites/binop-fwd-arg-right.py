y = a + b * c
z = (p - q) // r
