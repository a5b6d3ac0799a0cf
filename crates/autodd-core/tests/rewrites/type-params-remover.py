type Pair[T] = tuple[T, T]


def first[T](xs: list[T]) -> T:
    return xs[0]


async def fetch[**P](*args: P.args) -> None:
    pass


class Stack[T, *Ts](list):
    def push(self, item):
        self.append(item)


class Plain:
    pass
