for shape in [(64, 32), (64, 64)]:
    check(shape)
for sku, qty in (('tea', 1),):
    pass
for name in {'b', 'a'}:
    print(name)
for key in {'server': 1, 'client': 2}:
    use(key)
for (name, sku), want in {('A1', 'bolt'): 70}.items():
    print(name, sku, want)
for v in {'x': 1}.values():
    print(v)
for k in {'x': 1}.keys():
    print(k)
for i in range(3, 10, 2):
    print(i)
else:
    done()
for line in 'add A1 bolt 100\nrm A1 bolt\n'.strip().splitlines():
    run(line)
for word in '  \x1c alpha beta '.split():
    print(word)
for line in '\nsecond'.splitlines():
    print(repr(line))
for x in range(10):
    print(x)
for x in []:
    never()
for w in ''.split():
    never()
for w in 'a b'.split(','):
    print(w)
for x in [*rest, 1]:
    print(x)
for x in {**base}:
    print(x)
for x in items:
    print(x)
async def f():
    async for x in [1, 2]:
        print(x)
