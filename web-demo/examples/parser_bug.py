"""A calculator whose parser makes `-` right-associative: 10 - 4 - 3 gives 9, not 3.

The tokenizer, the pretty printer and the REPL-style driver have nothing to do with it.
Run: python3 parser_bug.py
"""

import re

TOKEN = re.compile(r"\s*(?:(\d+\.?\d*)|(.))")


def tokenize(text):
    tokens = []
    for number, op in TOKEN.findall(text):
        if number:
            tokens.append(("num", float(number)))
        elif op.strip():
            tokens.append(("op", op))
    tokens.append(("end", None))
    return tokens


class Parser:
    def __init__(self, text):
        self.tokens = tokenize(text)
        self.pos = 0

    def peek(self):
        return self.tokens[self.pos]

    def take(self):
        token = self.tokens[self.pos]
        self.pos += 1
        return token

    def parse_expr(self):
        left = self.parse_term()
        while self.peek() in (("op", "+"), ("op", "-")):
            op = self.take()[1]
            if op == "-":
                # BUG: recursing here makes `a - b - c` parse as `a - (b - c)`.
                right = self.parse_expr()
                return ("-", left, right)
            right = self.parse_term()
            left = (op, left, right)
        return left

    def parse_term(self):
        left = self.parse_atom()
        while self.peek() in (("op", "*"), ("op", "/")):
            op = self.take()[1]
            left = (op, left, self.parse_atom())
        return left

    def parse_atom(self):
        kind, value = self.take()
        if kind == "num":
            return value
        if value == "(":
            inner = self.parse_expr()
            self.take()
            return inner
        raise SyntaxError(f"unexpected {value!r}")


def evaluate(tree):
    if isinstance(tree, float):
        return tree
    op, left, right = tree
    a, b = evaluate(left), evaluate(right)
    return {"+": a + b, "-": a - b, "*": a * b, "/": a / b}[op]


def show(tree):
    if isinstance(tree, float):
        return f"{tree:g}"
    op, left, right = tree
    return f"({show(left)} {op} {show(right)})"


CASES = [
    ("1 + 2 * 3", 7),
    ("(1 + 2) * 3", 9),
    ("8 / 2 / 2", 2),
    ("10 - 4 - 3", 3),
]


def main():
    for text, expected in CASES:
        tree = Parser(text).parse_expr()
        got = evaluate(tree)
        print(f"{text:<12} => {show(tree):<24} = {got:g}")
        assert got == expected, f"{text}: expected {expected}, got {got:g}"


if __name__ == "__main__":
    main()
