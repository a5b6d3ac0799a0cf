from dataclasses import dataclass, field
class DSLError(Exception):
    pass
@dataclass
class Buffer:
    shape: tuple
class _KernelScope:
    def __enter__(self):
        pass
    def __exit__():
        pass
def _check_dim(op, dim, left, right):
    raise DSLError(f'T.{op} {dim} shape check failed: {left} != {right}')
class T:
    def Kernel():
        return _KernelScope()
    def alloc_shared():
        buf = Buffer('shared')
        return buf
    def gemm(a, b):
        _check_dim('gemm', 'K', a.shape, b.shape)
def matmul():
    def main(**kwargs):
        with T.Kernel():
            A_shared = T.alloc_shared()
            B_shared = T.alloc_shared()
            T.gemm(A_shared, B_shared)
    return main, ()
def main():
    kernel, args = matmul()
    trace = kernel()
main()
