# rustpython-parser 0.4 builds a different AST than CPython 3.11 for these, so
# their printed form does not parse back to CPython's AST (see
# tests/roundtrip_stdlib.py). The output is still valid and stable.
# CPython gives kind=None for an upper-case U prefix; the parser gives 'u'.
U'upper-case u prefix'
# CPython says simple=0 for a parenthesized target; the parser says 1.
(x): int = 1
# CPython makes the subject a one-element tuple; the parser drops the tuple.
match x,:
    case _:
        pass
