def parse(tokens):
    out = []
    for tok in tokens:
        if tok == '(':
            out.append(tok)
        elif tok.isdigit():
            return int(tok)
        else:
            raise SyntaxError(f'bad token {tok}')
    def inner():
        while True:
            return 1
    return out
try:
    parse('(1x')
except ValueError:
    raise
class C:
    if True:
        raise TypeError('in a class body')
