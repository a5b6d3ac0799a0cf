while queue:
    item = queue.pop()
else:
    done()
while True:
    if ready():
        break
