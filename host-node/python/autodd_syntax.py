"""Why autodd's parser refused a program, as the user's own interpreter sees it.

    python autodd_syntax.py LINE COLUMN < PROGRAM

autodd parses with rustpython-parser, whose grammar is Python 3.11's. When it refuses
a program, the host runs this with the interpreter the candidates run under (`--python`)
and the position of the refusal, and prints one line of JSON:

    {"version": V, "accepted": false, "error": MESSAGE, "line": L, "column": C}
        the interpreter refuses the program too: its own message;
    {"accepted": true, "construct": WHAT, "pep": N, "since": "3.X", "hint": TEXT,
     "line": L, "column": C}
        valid code in a construct newer than Python 3.11 (the one at the refusal, or
        else the first in the file);
    {"accepted": true, "construct": null}
        valid code the parser should read: a parser bug.

Only the standard library; runs on Python 3.8 and later."""

import ast
import json
import sys

VERSION = sys.version.split()[0]

# Newer syntax that autodd's parser does not read, by AST node: what it is, its PEP,
# the first Python with it, and what to do meanwhile.
F_STRING = (
    "an f-string with quotes, a backslash, a comment or a line break of its own inside a "
    "replacement field",
    701,
    "3.12",
    "write the inner string with the other kind of quote (f\"{', '.join(names)}\"), or "
    "compute the expression into a variable before the f-string",
)
TEMPLATE = (
    "a template string (t-string)",
    750,
    "3.14",
    "use an f-string while reducing",
)
TYPE_DEFAULT = (
    "a default for a type parameter",
    696,
    "3.13",
    "drop the default ([T] instead of [T = int]) while reducing",
)
EXCEPT_TUPLE = (
    "several exception types after except without parentheses",
    758,
    "3.14",
    "put them in parentheses: except (A, B):",
)


def fstring_is_new(source_lines, node):
    """Whether the f-string `node` needs Python 3.12's grammar (PEP 701): one of its
    replacement fields holds its own quote, a backslash, a comment or (in a string
    quoted once) a line break."""
    text = segment(source_lines, node)
    if text is None:
        return False
    start = 0
    while start < len(text) and text[start] not in "'\"":
        start += 1
    if start == len(text) or start > 3:
        return False  # a format spec's part, not an f-string of its own
    quote = text[start : start + 3]
    if quote not in ('"""', "'''"):
        quote = text[start]
    for value in node.values:
        if not isinstance(value, ast.FormattedValue):
            continue
        inner = segment(source_lines, value.value)
        if inner is None:
            continue
        if quote in inner or "\\" in inner:
            return True
        # The whole field, braces included (its positions are exact from 3.12 on): a
        # comment after the expression, or a line break in a string quoted once.
        field = segment(source_lines, value) or inner
        rest = field.replace(inner, "", 1)
        if value.format_spec is not None:
            rest = rest.replace(segment(source_lines, value.format_spec) or "", "", 1)
        if "#" in rest or (len(quote) == 1 and "\n" in field):
            return True
    return False


def segment(source_lines, node):
    """The source text of `node` (ast.get_source_segment, without its cost per call)."""
    if getattr(node, "end_lineno", None) is None:
        return None
    first, last = node.lineno - 1, node.end_lineno - 1
    if first == last:
        return source_lines[first][node.col_offset : node.end_col_offset]
    parts = [source_lines[first][node.col_offset :]]
    parts.extend(source_lines[first + 1 : last])
    parts.append(source_lines[last][: node.end_col_offset])
    return "".join(parts)


def construct(source, source_lines, node):
    """The newer construct `node` is, if it is one."""
    name = type(node).__name__
    if name == "TemplateStr":
        return TEMPLATE
    if name == "JoinedStr" and fstring_is_new(source_lines, node):
        return F_STRING
    if name in ("TypeVar", "ParamSpec", "TypeVarTuple") and getattr(node, "default_value", None) is not None:
        return TYPE_DEFAULT
    if isinstance(node, ast.ExceptHandler) and isinstance(node.type, ast.Tuple):
        text = segment(source_lines, node.type) or ""
        if not text.startswith("("):
            return EXCEPT_TUPLE
    return None


def contains(node, line, column):
    """Whether `node` spans (line, column), both 1-based as autodd reports them."""
    if getattr(node, "end_lineno", None) is None:
        return False
    start = (node.lineno, node.col_offset + 1)
    end = (node.end_lineno, node.end_col_offset + 1)
    return start <= (line, column) <= end


def main(argv):
    line, column = int(argv[1]), int(argv[2])
    source = sys.stdin.buffer.read().decode("utf-8", "surrogateescape")
    try:
        tree = ast.parse(source)
    except SyntaxError as e:
        print(json.dumps({"version": VERSION, "accepted": False, "error": e.msg, "line": e.lineno, "column": e.offset}))
        return
    source_lines = source.splitlines(keepends=True)
    found = None
    first = None
    for node in ast.walk(tree):
        what = construct(source, source_lines, node)
        if what is None:
            continue
        at = (node.lineno, node.col_offset + 1)
        if first is None or at < first[1]:
            first = (what, at)
        # The innermost construct at the refusal wins.
        if contains(node, line, column) and (found is None or at >= found[1]):
            found = (what, at)
    found = found or first
    if found is None:
        print(json.dumps({"version": VERSION, "accepted": True, "construct": None}))
        return
    (what, pep, since, hint), (at_line, at_column) = found
    print(
        json.dumps(
            {
                "version": VERSION,
                "accepted": True,
                "construct": what,
                "pep": pep,
                "since": since,
                "hint": hint,
                "line": at_line,
                "column": at_column,
            }
        )
    )


if __name__ == "__main__":
    main(sys.argv)
