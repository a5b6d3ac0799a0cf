def make_pipeline():
    return [Job('compile'), Job('test', deps=('compile',))]


def scaled(x, factor=2, *, unused=None):
    return x * factor


def area(w, h=1, /):
    return w * h


def twice(n):
    return n + n


class Shape:
    def size(self):
        return 1


sched = Scheduler(make_pipeline(), workers=2)
print(area(sched.n - 1) + twice(sched.count))
print(twice)
