# Where the parser's tree and CPython's could differ. rustpython-parser 0.4 (the
# parser before ruff's) got the last two wrong; ruff's parser reads them as CPython.
# CPython gives kind=None for an upper-case U prefix; the parser gives 'u'.
U'upper-case u prefix'
# CPython says simple=0 for a parenthesized target.
(x): int = 1
# CPython makes the subject a one-element tuple.
match x,:
    case _:
        pass
