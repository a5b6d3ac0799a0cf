with open(path) as f, lock:
    data = f.read()
with a as (x, y), b as z:
    use(x, y, z)
with plain():
    pass
