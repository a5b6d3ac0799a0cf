"""A calculator: tokenizer, Pratt parser, evaluator and a self-test table.

Bug report: `2 ** 3 ** 2` evaluates to 64 instead of 512 (right associativity of
the power operator is lost). The self-test prints a MISMATCH line and exits 0.
"""

import math
import re
from dataclasses import dataclass, field

TOKEN_RE = re.compile(
    r"\s*(?:(?P<num>\d+\.\d*|\d*\.\d+|\d+)|(?P<name>[A-Za-z_]\w*)|(?P<op>\*\*|//|[-+*/%(),^=]))"
)


@dataclass
class Token:
    kind: str
    text: str
    pos: int


class LexError(Exception):
    pass


class ParseError(Exception):
    pass


def tokenize(src):
    pos = 0
    out = []
    while pos < len(src):
        if src[pos:].strip() == "":
            break
        m = TOKEN_RE.match(src, pos)
        if not m:
            raise LexError(f"bad character {src[pos]!r} at {pos}")
        kind = m.lastgroup
        out.append(Token(kind, m.group(kind), m.start(kind)))
        pos = m.end()
    out.append(Token("eof", "", len(src)))
    return out


@dataclass
class Num:
    value: float


@dataclass
class Var:
    name: str


@dataclass
class Unary:
    op: str
    operand: object


@dataclass
class Binary:
    op: str
    left: object
    right: object


@dataclass
class Call:
    func: str
    args: list = field(default_factory=list)


@dataclass
class Assign:
    name: str
    value: object


# (left binding power, right binding power)
BINARY = {
    "=": (1, 0),
    "+": (10, 11),
    "-": (10, 11),
    "*": (20, 21),
    "/": (20, 21),
    "//": (20, 21),
    "%": (20, 21),
    "**": (30, 31),
    "^": (30, 29),
}
PREFIX_BP = 25


class Parser:
    def __init__(self, tokens):
        self.tokens = tokens
        self.i = 0

    def peek(self):
        return self.tokens[self.i]

    def advance(self):
        tok = self.tokens[self.i]
        self.i += 1
        return tok

    def expect(self, text):
        tok = self.advance()
        if tok.text != text:
            raise ParseError(f"expected {text!r} at {tok.pos}, got {tok.text!r}")
        return tok

    def parse(self):
        node = self.expr(0)
        if self.peek().kind != "eof":
            raise ParseError(f"trailing input at {self.peek().pos}")
        return node

    def prefix(self):
        tok = self.advance()
        if tok.kind == "num":
            return Num(float(tok.text))
        if tok.kind == "name":
            if self.peek().text == "(":
                self.advance()
                args = []
                if self.peek().text != ")":
                    args.append(self.expr(0))
                    while self.peek().text == ",":
                        self.advance()
                        args.append(self.expr(0))
                self.expect(")")
                return Call(tok.text, args)
            return Var(tok.text)
        if tok.text in ("-", "+"):
            return Unary(tok.text, self.expr(PREFIX_BP))
        if tok.text == "(":
            inner = self.expr(0)
            self.expect(")")
            return inner
        raise ParseError(f"unexpected {tok.text!r} at {tok.pos}")

    def expr(self, min_bp):
        left = self.prefix()
        while True:
            op = self.peek().text
            if op not in BINARY:
                break
            lbp, rbp = BINARY[op]
            if lbp < min_bp:
                break
            self.advance()
            right = self.expr(rbp)
            if op == "=":
                if not isinstance(left, Var):
                    raise ParseError("can only assign to a name")
                left = Assign(left.name, right)
            else:
                left = Binary(op, left, right)
        return left


FUNCS = {
    "sqrt": math.sqrt,
    "max": max,
    "min": min,
    "abs": abs,
    "floor": math.floor,
}


class Evaluator:
    def __init__(self):
        self.env = {"pi": math.pi, "e": math.e}

    def eval(self, node):
        method = getattr(self, "eval_" + type(node).__name__)
        return method(node)

    def eval_Num(self, node):
        return node.value

    def eval_Var(self, node):
        if node.name not in self.env:
            raise NameError(f"undefined variable {node.name}")
        return self.env[node.name]

    def eval_Unary(self, node):
        value = self.eval(node.operand)
        return -value if node.op == "-" else value

    def eval_Binary(self, node):
        a = self.eval(node.left)
        b = self.eval(node.right)
        if node.op == "+":
            return a + b
        if node.op == "-":
            return a - b
        if node.op == "*":
            return a * b
        if node.op == "/":
            return a / b
        if node.op == "//":
            return a // b
        if node.op == "%":
            return a % b
        if node.op in ("**", "^"):
            return a**b
        raise ValueError(node.op)

    def eval_Call(self, node):
        func = FUNCS[node.func]
        return func(*[self.eval(a) for a in node.args])

    def eval_Assign(self, node):
        value = self.eval(node.value)
        self.env[node.name] = value
        return value


def calc(src, ev=None):
    ev = ev or Evaluator()
    return ev.eval(Parser(tokenize(src)).parse())


CASES = [
    ("1 + 2 * 3", 7),
    ("(1 + 2) * 3", 9),
    ("10 - 4 - 3", 3),
    ("-2 * 3", -6),
    ("7 // 2 + 7 % 2", 4),
    ("max(1, 5, 3) + min(4, 2)", 7),
    ("sqrt(16) + abs(-3)", 7),
    ("2 ^ 3 ^ 2", 512),
    ("2 ** 3 ** 2", 512),
    ("floor(pi)", 3),
]


def self_test():
    ok = 0
    for src, want in CASES:
        got = calc(src)
        if math.isclose(got, want):
            ok += 1
        else:
            print("MIS" + f"MATCH in {src!r}: got {got:g}, want {want:g}")
    ev = Evaluator()
    calc("x = y = 4", ev)
    calc("z = x * y + 1", ev)
    print(f"env: x={ev.env['x']:g} y={ev.env['y']:g} z={ev.env['z']:g}")
    print(f"{ok}/{len(CASES)} passed")


self_test()
