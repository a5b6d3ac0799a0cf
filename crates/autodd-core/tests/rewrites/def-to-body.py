def helper(x):
    return x
def main():
    data = helper(3)
    print(data)
def twice():
    pass
@decorated
def dec():
    pass
def ret():
    return 1
def frozen_call():
    pass
if __name__ == '__main__':
    main()
twice()
twice()
dec()
ret()
with __freeze__:
    frozen_call()


def run(n, label='run', /):
    total = n * 2
    print(label, total)


def twice(x):
    print(x)


run(3)
twice(1)
twice(2)
