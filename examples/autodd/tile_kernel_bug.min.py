class DSLError(Exception):
    pass
class T:
    def gemm():
        raise DSLError(f'T.{"gemm"} {"K"} shape check failed: ')
def matmul():
    def main():
        T.gemm()
    return main, ()
kernel, args = matmul()
kernel()
