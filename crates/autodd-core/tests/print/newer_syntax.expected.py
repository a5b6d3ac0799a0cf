names = ['a', 'b']
print(f'names: {", ".join(names)}')
print(f'{"\n".join(names)}')
print(f'{"	"!r:>{10}}')
print(f'{len(names)}')
print(f'{f"{f'{f'{f'{1}'}'}'}"}')
print(f'names[0]={names[0]!r}', f' names = {names!s:>20}')
type Pair[T] = tuple[T, T]
def first[T: (int, str), *Ts, **P](xs: list[T]) -> T:
    return xs[0]
class Box[T]:
    pass
try:
    pass
except (ValueError, TypeError):
    pass
try:
    pass
except* (OSError, EOFError):
    pass
