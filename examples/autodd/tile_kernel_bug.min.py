class DSLError(Exception):
    pass
def _check_dim(op, dim, left, right):
    raise DSLError(f'T.{op} {dim} shape check failed: {left} != {right}')
class T:
    def gemm(transpose_A=False, transpose_B=False):
        _check_dim('gemm', 'K', transpose_A, not transpose_B)
def matmul():
    def main():
        T.gemm()
    return main, ()
def main():
    kernel, args = matmul()
    kernel()
main()
