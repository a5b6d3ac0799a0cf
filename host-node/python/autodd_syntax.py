"""Why autodd's parser refused a program, as the user's own interpreter sees it.

    python autodd_syntax.py LINE COLUMN < PROGRAM

autodd parses with ruff's parser (Python 3.7 to 3.14), but its syntax tree has no
place yet for two constructs of Python 3.13 and 3.14. When it refuses a program, the
host runs this with the interpreter the candidates run under (`--python`) and the
position of the refusal, and prints one line of JSON:

    {"version": V, "accepted": false, "error": MESSAGE, "line": L, "column": C}
        the interpreter refuses the program too: its own message;
    {"accepted": true, "construct": WHAT, "pep": N, "since": "3.X", "hint": TEXT,
     "line": L, "column": C}
        valid code in one of those constructs (the one at the refusal, or else the
        first in the file);
    {"accepted": true, "construct": null}
        valid code the parser should read: a parser bug.

Only the standard library; runs on Python 3.8 and later."""

import ast
import json
import sys

VERSION = sys.version.split()[0]

# Newer syntax that autodd cannot reduce yet, by AST node: what it is, its PEP, the
# first Python with it, and what to do meanwhile.
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


def construct(node):
    """The newer construct `node` is, if it is one."""
    name = type(node).__name__
    if name == "TemplateStr":
        return TEMPLATE
    if name in ("TypeVar", "ParamSpec", "TypeVarTuple") and getattr(node, "default_value", None) is not None:
        return TYPE_DEFAULT
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
    found = None
    first = None
    for node in ast.walk(tree):
        what = construct(node)
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
