"""A tiny SQL engine: tokenizer, recursive-descent parser for SELECT with WHERE,
GROUP BY, HAVING, ORDER BY and LIMIT, a planner that builds an iterator tree, and
aggregate functions.

Bug report: `ORDER BY total DESC` on an aggregated column sorts by the group key
instead of the aggregate, because the sort node resolves names against the input
row rather than the projected row when an alias shadows a column. The test suite
raises an AssertionError-like QueryMismatch with both results.
"""

import operator
import re
from dataclasses import dataclass, field
from typing import Any

KEYWORDS = {
    "select", "from", "where", "group", "by", "having", "order", "limit",
    "asc", "desc", "and", "or", "not", "as", "count", "sum", "avg", "min", "max",
}

TOKEN_RE = re.compile(
    r"\s*(?:(?P<number>\d+(?:\.\d+)?)|(?P<string>'[^']*')|(?P<ident>[A-Za-z_][A-Za-z0-9_]*)"
    r"|(?P<op><=|>=|!=|<>|[=<>*,()+\-/]))"
)


class SQLError(Exception):
    pass


class QueryMismatch(Exception):
    pass


@dataclass
class Tok:
    kind: str
    value: Any


def lex(sql):
    pos, out = 0, []
    sql = sql.rstrip().rstrip(";")
    while pos < len(sql):
        m = TOKEN_RE.match(sql, pos)
        if not m or m.end() == pos:
            raise SQLError(f"cannot lex at {sql[pos:pos + 10]!r}")
        pos = m.end()
        kind = m.lastgroup
        text = m.group(kind)
        if kind == "number":
            out.append(Tok("num", float(text) if "." in text else int(text)))
        elif kind == "string":
            out.append(Tok("str", text[1:-1]))
        elif kind == "ident" and text.lower() in KEYWORDS:
            out.append(Tok("kw", text.lower()))
        elif kind == "ident":
            out.append(Tok("name", text))
        else:
            out.append(Tok("op", text))
    out.append(Tok("end", None))
    return out


# Expressions: ("col", name) ("lit", v) ("bin", op, a, b) ("not", e) ("agg", fn, e)
@dataclass
class Select:
    items: list
    table: str
    where: Any = None
    group_by: list = field(default_factory=list)
    having: Any = None
    order_by: list = field(default_factory=list)
    limit: Any = None


class Parser:
    PRECEDENCE = [("or",), ("and",), ("=", "!=", "<>", "<", ">", "<=", ">="), ("+", "-"), ("*", "/")]

    def __init__(self, tokens):
        self.toks = tokens
        self.i = 0

    def peek(self, kind=None, value=None):
        tok = self.toks[self.i]
        if kind and tok.kind != kind:
            return False
        if value is not None and tok.value != value:
            return False
        return tok

    def take(self, kind=None, value=None):
        tok = self.peek(kind, value)
        if not tok:
            got = self.toks[self.i]
            raise SQLError(f"expected {value or kind}, got {got.value!r}")
        self.i += 1
        return tok

    def accept(self, kind, value=None):
        if self.peek(kind, value):
            return self.take(kind, value)
        return None

    def select(self):
        self.take("kw", "select")
        items = [self.select_item()]
        while self.accept("op", ","):
            items.append(self.select_item())
        self.take("kw", "from")
        stmt = Select(items, self.take("name").value)
        if self.accept("kw", "where"):
            stmt.where = self.expr()
        if self.accept("kw", "group"):
            self.take("kw", "by")
            stmt.group_by = [self.expr()]
            while self.accept("op", ","):
                stmt.group_by.append(self.expr())
        if self.accept("kw", "having"):
            stmt.having = self.expr()
        if self.accept("kw", "order"):
            self.take("kw", "by")
            stmt.order_by = [self.order_item()]
            while self.accept("op", ","):
                stmt.order_by.append(self.order_item())
        if self.accept("kw", "limit"):
            stmt.limit = self.take("num").value
        self.take("end")
        return stmt

    def select_item(self):
        if self.accept("op", "*"):
            return ("star", None)
        e = self.expr()
        alias = None
        if self.accept("kw", "as"):
            alias = self.take("name").value
        elif e[0] == "col":
            alias = e[1]
        return (e, alias or render(e))

    def order_item(self):
        e = self.expr()
        desc = False
        if self.accept("kw", "desc"):
            desc = True
        else:
            self.accept("kw", "asc")
        return (e, desc)

    def expr(self, level=0):
        if level == len(self.PRECEDENCE):
            return self.unary()
        left = self.expr(level + 1)
        while True:
            tok = self.toks[self.i]
            if tok.kind in ("op", "kw") and tok.value in self.PRECEDENCE[level]:
                self.i += 1
                left = ("bin", tok.value, left, self.expr(level + 1))
            else:
                return left

    def unary(self):
        if self.accept("kw", "not"):
            return ("not", self.unary())
        if self.accept("op", "("):
            e = self.expr()
            self.take("op", ")")
            return e
        tok = self.toks[self.i]
        if tok.kind == "kw" and tok.value in ("count", "sum", "avg", "min", "max"):
            self.i += 1
            self.take("op", "(")
            arg = ("lit", 1) if self.accept("op", "*") else self.expr()
            self.take("op", ")")
            return ("agg", tok.value, arg)
        if tok.kind == "num" or tok.kind == "str":
            self.i += 1
            return ("lit", tok.value)
        return ("col", self.take("name").value)


def render(e):
    match e:
        case ("col", name):
            return name
        case ("lit", value):
            return repr(value)
        case ("agg", fn, arg):
            return f"{fn}({render(arg)})"
        case ("bin", op, a, b):
            return f"{render(a)} {op} {render(b)}"
        case ("not", inner):
            return f"not {render(inner)}"
    raise SQLError(f"cannot render {e!r}")


BINOPS = {
    "+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.truediv,
    "=": operator.eq, "!=": operator.ne, "<>": operator.ne, "<": operator.lt,
    ">": operator.gt, "<=": operator.le, ">=": operator.ge,
    "and": lambda a, b: a and b, "or": lambda a, b: a or b,
}

AGGREGATES = {
    "count": len,
    "sum": sum,
    "avg": lambda xs: sum(xs) / len(xs) if xs else None,
    "min": min,
    "max": max,
}


def evaluate(e, row, group=None):
    kind = e[0]
    if kind == "col":
        if e[1] not in row:
            raise SQLError(f"no column {e[1]}")
        return row[e[1]]
    if kind == "lit":
        return e[1]
    if kind == "not":
        return not evaluate(e[1], row, group)
    if kind == "bin":
        return BINOPS[e[1]](evaluate(e[2], row, group), evaluate(e[3], row, group))
    if kind == "agg":
        if group is None:
            raise SQLError(f"aggregate {render(e)} outside GROUP BY")
        return AGGREGATES[e[1]]([evaluate(e[2], r) for r in group])
    raise SQLError(f"bad expression {e!r}")


def has_aggregate(e):
    if e[0] == "agg":
        return True
    return any(has_aggregate(x) for x in e[1:] if isinstance(x, tuple))


def scan(rows):
    yield from rows


def filter_rows(rows, cond):
    return (r for r in rows if evaluate(cond, r))


def group_rows(rows, keys):
    groups = {}
    for r in rows:
        k = tuple(evaluate(e, r) for e in keys)
        groups.setdefault(k, []).append(r)
    return groups


def execute(stmt, db):
    if stmt.table not in db:
        raise SQLError(f"no table {stmt.table}")
    rows = scan(db[stmt.table])
    if stmt.where is not None:
        rows = filter_rows(rows, stmt.where)
    aggregated = stmt.group_by or any(item != ("star", None) and has_aggregate(item[0]) for item in stmt.items)
    out = []
    if aggregated:
        for _, group in sorted(group_rows(rows, stmt.group_by).items()):
            first = group[0]
            if stmt.having is not None and not evaluate(stmt.having, first, group):
                continue
            projected = {alias: evaluate(e, first, group) for e, alias in stmt.items}
            out.append((first, projected))
    else:
        for r in rows:
            projected = dict(r) if stmt.items == [("star", None)] else {a: evaluate(e, r) for e, a in stmt.items}
            out.append((r, projected))
    for e, desc in reversed(stmt.order_by):
        # The bug: names are looked up in the source row first, so an alias that
        # is not a source column falls back to... the source row's own columns.
        def key(pair, e=e):
            source, projected = pair
            try:
                return evaluate(e, source)
            except SQLError:
                return evaluate(e, projected)

        out.sort(key=key, reverse=desc)
    result = [p for _, p in out]
    if stmt.limit is not None:
        result = result[: stmt.limit]
    return result


def query(sql, db):
    return execute(Parser(lex(sql)).select(), db)


DB = {
    "orders": [
        {"id": 1, "customer": "ada", "amount": 30, "total": 30, "region": "north"},
        {"id": 2, "customer": "bob", "amount": 120, "total": 120, "region": "south"},
        {"id": 3, "customer": "ada", "amount": 45, "total": 45, "region": "north"},
        {"id": 4, "customer": "cyd", "amount": 80, "total": 80, "region": "east"},
        {"id": 5, "customer": "bob", "amount": 15, "total": 15, "region": "south"},
        {"id": 6, "customer": "dee", "amount": 60, "total": 60, "region": "north"},
        {"id": 7, "customer": "cyd", "amount": 70, "total": 70, "region": "east"},
    ]
}

TESTS = [
    ("select id, amount from orders where amount > 60 order by amount",
     [{"id": 7, "amount": 70}, {"id": 4, "amount": 80}, {"id": 2, "amount": 120}]),
    ("select region, count(*) as n from orders group by region having count(*) > 2",
     [{"region": "north", "n": 3}]),
    ("select customer, sum(amount) as total from orders group by customer order by total desc limit 2",
     [{"customer": "cyd", "total": 150}, {"customer": "bob", "total": 135}]),
    ("select avg(amount) as mean from orders where region = 'north'",
     [{"mean": 45.0}]),
]


def main():
    for sql, want in TESTS:
        got = query(sql, DB)
        print(f"{len(got)} rows  {sql[:50]}")
        if got != want:
            raise QueryMismatch(f"query {TESTS.index((sql, want)) + 1} returned " + f"{got}")


main()
