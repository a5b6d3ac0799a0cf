class DSLError(Exception):
    pass
def _check_dim(op, dim):
    raise DSLError(f'T.{op} {dim} shape check failed: ')
class T:
    def gemm():
        _check_dim('gemm', 'K')
def matmul():
    def main():
        T.gemm()
    return main, ()
kernel, args = matmul()
kernel()
