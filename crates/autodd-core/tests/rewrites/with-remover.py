with lock:
    update()
with open(path) as f:
    f.read()
async def g():
    async with session, other:
        await fetch()
