class Parser:
    def __init__(self, tokens):
        self.tokens = tokens
        self.pos = 0
    def peek(self, offset=0):
        return self.tokens[self.pos + offset]
    def parse_expr(self):
        return self.parse_sum()
    def parse_sum(self):
        return self.peek() + self.peek(1)
    def lookup(self, table, key):
        return table[key]
    def dynamic(self):
        return 1
    def spread(self, *args):
        return args
    def twice(self):
        return 2
    def twice(self, n):
        return n
p = Parser([1, 2])
print(p.parse_expr(), p.lookup({'a': 1}, key='a'), getattr(p, 'dynamic'), p.dynamic)
print(Parser([3]).peek(), p.peek(*[0]))
with __freeze__:
    print(p.lookup({}, 0))
