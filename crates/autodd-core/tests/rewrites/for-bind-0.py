for i in range(10):
    print(i)
for k, (a, b) in items:
    use(k, a, b)
else:
    done()
async def f():
    async for x in stream():
        await g(x)
