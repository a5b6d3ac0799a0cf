def f(x: int, *args: str) -> bool:
    assert x, 'x must be set'
    if x:
        raise ValueError('bad') from None
    return x > 1
