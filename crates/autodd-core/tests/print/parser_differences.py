# Where the parser's tree and CPython's could differ: rustpython-parser 0.4 (the
# parser before ruff's) got all three wrong.
# CPython gives kind=None for an upper-case U prefix, 'u' for a lower-case one.
U'upper-case u prefix'
# CPython says simple=0 for a parenthesized target.
(x): int = 1
# CPython makes the subject a one-element tuple.
match x,:
    case _:
        pass
