# Syntax of Python 3.12 to 3.14 that the parser reads and the printer writes back.
# PEP 701: an f-string's own quotes, backslashes, comments and line breaks in a
# replacement field. Printed with 3.11's spelling where one exists.
names = ["a", "b"]
print(f"names: {", ".join(names)}")
print(f"{"\n".join(names)}")
print(f"{'\t'!r:>{10}}")
print(f"{
    len(names)  # how many
}")
print(f"{f"{f"{f"{f"{1}"}"}"}"}")
print(f"{names[0]=}", f"{ names = !s:>20}")
# PEP 695: type parameters and `type` statements.
type Pair[T] = tuple[T, T]
def first[T: (int, str), *Ts, **P](xs: list[T]) -> T:
    return xs[0]
class Box[T]:
    pass
# PEP 758 (3.14): several exception types without parentheses.
try:
    pass
except ValueError, TypeError:
    pass
try:
    pass
except* OSError, EOFError:
    pass
