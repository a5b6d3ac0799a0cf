graph = build(EDGES)
route = plan(graph, 'a')
total = 0
total = total + 1
seen = 1
print(route, total, seen, seen)
with __freeze__:
    frozen = 2
    print(frozen)
