"""A loader for a small configuration language, written as a recursive-descent
parser.

The language has `let` bindings, nested sections of `name = expr;` assignments,
arithmetic, comparisons, `and`/`not`, strings, lists, dotted references to other
settings, and `check` statements that are evaluated after loading. The loader
tokenizes the text, parses it into an AST of tuples (one method per grammar
rule), evaluates it into nested dicts, and cross-checks settings stored twice.

Bug report: the maintenance schedule for the Newfoundland data centre (UTC-3:30)
is computed with the wrong offset; the loader raises ConfigError because
`schedule.tz_offset_min` does not agree with the `tz` string next to it.
"""

import operator
import re

SOURCE = """
# deployment configuration of the billing service
let base_port = 8000;
let mb = 1024 * 1024;
let regions = ["eu-west", "us-east", "ca-east",];

server {
    host = "0.0.0.0";
    port = base_port + 443;
    workers = 2 * 3 + 1;
    tls = true;
    debug = not tls;
}

cache {
    size = 256 * mb;
    evict_at = size * 9 / 10;
    shards = server.workers + 1;
    warm = size > 64 * mb and not server.debug;
}

schedule {
    tz = "-03:30";
    tz_offset_min = -3 * 60 - 30;
    window_start = 120 - tz_offset_min;
    primary = "ca-" + "east";
    retry {
        attempts = 3;
        backoff = [1, 2 * 2, (3 + 1) * 4];
    }
}

check server.port > 1024 and server.port < 65536;
check cache.evict_at < cache.size;
check schedule.retry.attempts > 0 and cache.shards % 2 == 0;
"""

TOKEN_RE = re.compile(
    r"(?P<ws>\s+|#[^\n]*)|(?P<num>\d+(?:\.\d+)?)|(?P<str>\"(?:[^\"\\]|\\.)*\")"
    r"|(?P<name>[A-Za-z_]\w*)|(?P<op><=|>=|==|!=|[-+*/%<>=;,.{}()\[\]])"
)
KEYWORDS = {"let", "check", "and", "not", "true", "false"}


class ConfigError(Exception):
    pass


def tokenize(text):
    tokens, pos, line = [], 0, 1
    while pos < len(text):
        m = TOKEN_RE.match(text, pos)
        if not m:
            raise ConfigError(f"line {line}: unexpected character {text[pos]!r}")
        kind, value = m.lastgroup, m.group()
        if kind == "name" and value in KEYWORDS:
            kind = "kw"
        if kind != "ws":
            tokens.append((kind, value, line))
        line += value.count("\n")
        pos = m.end()
    tokens.append(("eof", "", line))
    return tokens


class Parser:
    def __init__(self, text):
        self.tokens = tokenize(text)
        self.pos = 0

    def peek(self, value=None):
        kind, text, _ = self.tokens[self.pos]
        return text == value if value is not None else (kind, text)

    def advance(self):
        tok = self.tokens[self.pos]
        self.pos += 1
        return tok

    def expect(self, value=None, kind=None):
        tok_kind, text, line = self.advance()
        if (value is not None and text != value) or (kind is not None and tok_kind != kind):
            raise ConfigError(f"line {line}: expected {value or kind}, found {text!r}")
        return text

    # file := item* EOF
    def parse_file(self):
        items = []
        while self.peek() != ("eof", ""):
            items.append(self.parse_item())
        return items

    # item := 'let' NAME '=' expr ';' | 'check' expr ';' | section
    def parse_item(self):
        if self.peek("let"):
            self.advance()
            name = self.expect(kind="name")
            self.expect("=")
            value = self.parse_expr()
            self.expect(";")
            return ("let", name, value)
        if self.peek("check"):
            line = self.advance()[2]
            cond = self.parse_expr()
            self.expect(";")
            return ("check", cond, line)
        return self.parse_section()

    # section := NAME '{' (NAME '=' expr ';' | section)* '}'
    def parse_section(self):
        name = self.expect(kind="name")
        self.expect("{")
        body = []
        while not self.peek("}"):
            if self.tokens[self.pos + 1][1] == "{":
                body.append(self.parse_section())
                continue
            key = self.expect(kind="name")
            self.expect("=")
            body.append(("set", key, self.parse_expr()))
            self.expect(";")
        self.expect("}")
        return ("section", name, body)

    # expr := comparison ('and' comparison)*
    def parse_expr(self):
        node = self.parse_comparison()
        while self.peek("and"):
            self.advance()
            node = ("and", node, self.parse_comparison())
        return node

    # comparison := sum (('<' | '<=' | '>' | '>=' | '==' | '!=') sum)?
    def parse_comparison(self):
        node = self.parse_sum()
        if self.peek()[1] in ("<", "<=", ">", ">=", "==", "!="):
            op = self.advance()[1]
            node = ("bin", op, node, self.parse_sum())
        return node

    # sum := term (('+' | '-') term)*
    def parse_sum(self):
        node = self.parse_term()
        while self.peek()[1] in ("+", "-"):
            op = self.advance()[1]
            node = ("bin", op, node, self.parse_term())
        return node

    # term := unary (('*' | '/' | '%') unary)*
    def parse_term(self):
        node = self.parse_unary()
        while self.peek()[1] in ("*", "/", "%"):
            op = self.advance()[1]
            node = ("bin", op, node, self.parse_unary())
        return node

    # unary := ('-' | 'not') unary | atom
    def parse_unary(self):
        if self.peek("-") or self.peek("not"):
            op = "neg" if self.advance()[1] == "-" else "not"
            return (op, self.parse_expr())
        return self.parse_atom()

    # atom := NUM | STR | 'true' | 'false' | '(' expr ')' | list | ref
    def parse_atom(self):
        kind, text, line = self.advance()
        if kind == "num":
            return ("const", float(text) if "." in text else int(text))
        if kind == "str":
            return ("const", bytes(text[1:-1], "utf-8").decode("unicode_escape"))
        if text in ("true", "false"):
            return ("const", text == "true")
        if text == "(":
            node = self.parse_expr()
            self.expect(")")
            return node
        if text == "[":
            items = []
            while not self.peek("]"):
                items.append(self.parse_expr())
                if not self.peek("]"):
                    self.expect(",")
            self.advance()
            return ("list", items)
        if kind == "name":
            path = [text]
            while self.peek("."):
                self.advance()
                path.append(self.expect(kind="name"))
            return ("ref", tuple(path))
        raise ConfigError(f"line {line}: unexpected {text!r}")


BINARY = {
    "+": operator.add, "-": operator.sub, "*": operator.mul, "%": operator.mod,
    "/": lambda a, b: a // b if isinstance(a, int) and isinstance(b, int) else a / b,
    "<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge,
    "==": operator.eq, "!=": operator.ne,
}


def evaluate(node, scopes):
    tag = node[0]
    if tag == "const":
        return node[1]
    if tag == "list":
        return [evaluate(item, scopes) for item in node[1]]
    if tag == "neg":
        return -evaluate(node[1], scopes)
    if tag == "not":
        return not evaluate(node[1], scopes)
    if tag == "and":
        return evaluate(node[1], scopes) and evaluate(node[2], scopes)
    if tag == "bin":
        return BINARY[node[1]](evaluate(node[2], scopes), evaluate(node[3], scopes))
    if tag == "ref":
        for scope in scopes:
            value, found = scope, True
            for part in node[1]:
                if not isinstance(value, dict) or part not in value:
                    found = False
                    break
                value = value[part]
            if found:
                return value
        raise ConfigError(f"undefined name {'.'.join(node[1])}")
    raise ConfigError(f"unknown node {tag}")


def load(text):
    root, lets, checks = {}, {}, []

    def run_section(node, target, scopes):
        _, name, body = node
        table = target.setdefault(name, {})
        for item in body:
            if item[0] == "section":
                run_section(item, table, [table, *scopes])
            else:
                table[item[1]] = evaluate(item[2], [table, *scopes])

    for item in Parser(text).parse_file():
        if item[0] == "let":
            lets[item[1]] = evaluate(item[2], [lets])
        elif item[0] == "check":
            checks.append(item)
        else:
            run_section(item, root, [root, lets])
    for _, cond, line in checks:
        if not evaluate(cond, [root, lets]):
            raise ConfigError(f"check on line {line} failed")
    return root


def flatten(table, prefix=""):
    for key, value in table.items():
        if isinstance(value, dict):
            yield from flatten(value, f"{prefix}{key}.")
        else:
            yield f"{prefix}{key}", value


def tz_minutes(text):
    m = re.fullmatch(r"([+-])(\d{2}):(\d{2})", text)
    minutes = int(m.group(2)) * 60 + int(m.group(3))
    return -minutes if m.group(1) == "-" else minutes


def main():
    config = load(SOURCE)
    for key, value in flatten(config):
        print(f"{key:<28} = {value!r}")
    schedule = config["schedule"]
    expected = tz_minutes(schedule["tz"])
    if schedule["tz_offset_min"] != expected:
        raise ConfigError(f"schedule.tz_offset_min is {schedule['tz_offset_min']}, "
                          f"but tz {schedule['tz']!r} means {expected}")
    start = schedule["window_start"]
    print(f"maintenance window {start // 60:02d}:{start % 60:02d} UTC in {schedule['primary']}")


if __name__ == "__main__":
    main()
