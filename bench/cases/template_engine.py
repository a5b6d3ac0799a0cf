"""A small text template engine: `{{ expr | filter }}` substitutions, `{% for %}`
and `{% if %}` blocks, compiled to a tree of nodes and rendered against a context.

Bug report: the `money` filter formats negative amounts as `$-5.00` instead of
`-$5.00`, so the rendered invoice does not match the expected text. The program
prints a DIFF line on stdout and exits 0.
"""

import re

TOKEN = re.compile(r"({{.*?}}|{%.*?%})", re.S)


class TemplateError(Exception):
    pass


FILTERS = {}


def template_filter(name):
    def register(fn):
        FILTERS[name] = fn
        return fn

    return register


@template_filter("upper")
def _upper(value):
    return str(value).upper()


@template_filter("money")
def _money(value):
    return f"${value:,.2f}"


@template_filter("pad")
def _pad(value, width="10"):
    return str(value).ljust(int(width))


@template_filter("rpad")
def _rpad(value, width="10"):
    return str(value).rjust(int(width))


def resolve(expr, ctx):
    parts = expr.split(".")
    value = ctx[parts[0]] if parts[0] in ctx else None
    if value is None:
        raise TemplateError(f"undefined name {parts[0]!r}")
    for attr in parts[1:]:
        value = value[attr] if isinstance(value, dict) else getattr(value, attr)
    return value


class Text:
    def __init__(self, text):
        self.text = text

    def render(self, ctx):
        return self.text


class Var:
    def __init__(self, source):
        expr, *filters = [p.strip() for p in source.split("|")]
        self.expr = expr
        self.filters = [f.split(":") for f in filters]

    def render(self, ctx):
        value = resolve(self.expr, ctx)
        for name, *args in self.filters:
            if name not in FILTERS:
                raise TemplateError(f"unknown filter {name}")
            value = FILTERS[name](value, *args)
        return str(value)


class Block:
    def __init__(self):
        self.children = []

    def render(self, ctx):
        return "".join(child.render(ctx) for child in self.children)


class For(Block):
    def __init__(self, var, seq):
        super().__init__()
        self.var = var
        self.seq = seq

    def render(self, ctx):
        out = []
        items = list(resolve(self.seq, ctx))
        for i, item in enumerate(items):
            inner = dict(ctx, **{self.var: item, "loop": {"index": i + 1, "last": i == len(items) - 1}})
            out.append(super().render(inner))
        return "".join(out)


class If(Block):
    def __init__(self, cond):
        super().__init__()
        self.cond = cond
        self.negate = cond.startswith("not ")
        if self.negate:
            self.cond = cond[4:]

    def render(self, ctx):
        value = bool(resolve(self.cond, ctx))
        return super().render(ctx) if value != self.negate else ""


def compile_template(source):
    root = Block()
    stack = [root]
    for piece in TOKEN.split(source):
        if not piece:
            continue
        if piece.startswith("{{"):
            stack[-1].children.append(Var(piece[2:-2].strip()))
        elif piece.startswith("{%"):
            words = piece[2:-2].split()
            if words[0] == "for":
                node = For(words[1], words[3])
            elif words[0] == "if":
                node = If(" ".join(words[1:]))
            elif words[0] in ("endfor", "endif"):
                stack.pop()
                continue
            else:
                raise TemplateError(f"unknown tag {words[0]}")
            stack[-1].children.append(node)
            stack.append(node)
        else:
            stack[-1].children.append(Text(piece))
    if len(stack) != 1:
        raise TemplateError("unclosed block")
    return root


INVOICE = """INVOICE {{ number | upper }}
{% for line in lines %}{{ line.item | pad:12 }}{{ line.amount | money | rpad:10 }}
{% endfor %}{% if discount %}discount    {{ discount | money | rpad:10 }}
{% endif %}total       {{ total | money | rpad:10 }}
"""

EXPECTED = """INVOICE A-17
widget          $12.50
gadget         $240.00
refund          -$5.00
discount       -$10.00
total          $237.50
"""


def main():
    lines = [
        {"item": "widget", "amount": 12.5},
        {"item": "gadget", "amount": 240.0},
        {"item": "refund", "amount": -5.0},
    ]
    discount = -10.0
    ctx = {
        "number": "a-17",
        "lines": lines,
        "discount": discount,
        "total": sum(l["amount"] for l in lines) + discount,
    }
    out = compile_template(INVOICE).render(ctx)
    print(out, end="")
    for n, (got, want) in enumerate(zip(out.splitlines(), EXPECTED.splitlines()), 1):
        if got != want:
            print("DI" + f"FF line {n}: got {got.strip()!r}, want {want.strip()!r}")
            break


main()
