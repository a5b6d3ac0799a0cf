def f(x: int, *args: str) -> bool:
    assert x, 'x must be set'
    if x:
        raise ValueError('bad') from None
    return x > 1


try:
    run()
except KeyError as e:
    pass
except ValueError:
    pass
try:
    run()
except* OSError:
    pass
