graph = build(EDGES)
route = plan(graph, 'a')
total = 0
total = total + 1
seen = 1
print(route, total, seen, seen)
with __freeze__:
    frozen = 2
    print(frozen)
class Parser:
    def parse(self):
        node = self.expr(0)
        return node
    def term(self, node):
        return node
    def sum(self):
        node = self.term(1)
        node = node + 1
        return node
def closure():
    limit = 3
    def inner():
        return limit
    return inner
def shadowed():
    found = 1
    for found in range(2):
        pass
    return found
def declared():
    global total
    total = 5
    return total
