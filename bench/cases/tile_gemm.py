"""Bug report: a split-K tiled GEMM written in a small tile DSL fails its shape
check when the K split does not divide the block size.

The DSL below mimics a GPU kernel language: buffers with shapes and dtypes,
shared/fragment allocations, pipelined loops, copies and a gemm primitive with
layout checks. Running the script traces the kernel for a few configurations,
prints a table, then fails on the split-K configuration.
"""

from tilelang.autodd import __freeze__
import contextlib
import functools
import itertools
import math

DTYPE_BYTES = {"float16": 2, "bfloat16": 2, "float32": 4, "int8": 1}


class ShapeError(Exception):
    pass


class Buffer:
    def __init__(self, name, shape, dtype, scope="global"):
        if dtype not in DTYPE_BYTES:
            raise ValueError(f"unknown dtype {dtype}")
        self.name = name
        self.shape = tuple(shape)
        self.dtype = dtype
        self.scope = scope

    @property
    def nbytes(self):
        return math.prod(self.shape) * DTYPE_BYTES[self.dtype]

    def __getitem__(self, index):
        if not isinstance(index, tuple):
            index = (index,)
        return Region(self, index)

    def __repr__(self):
        return f"{self.scope}:{self.name}{list(self.shape)}:{self.dtype}"


class Region:
    def __init__(self, buffer, index):
        self.buffer = buffer
        self.index = index

    @property
    def shape(self):
        dims = []
        for i, ix in enumerate(self.index):
            if isinstance(ix, slice):
                start = ix.start or 0
                stop = self.buffer.shape[i] if ix.stop is None else ix.stop
                dims.append(stop - start)
        dims.extend(self.buffer.shape[len(self.index):])
        return tuple(dims)


class Trace:
    def __init__(self):
        self.ops = []
        self.smem = 0
        self.regs = 0

    def emit(self, op, *args):
        self.ops.append((op,) + args)


_TRACE = None


def current():
    if _TRACE is None:
        raise RuntimeError("not inside a kernel")
    return _TRACE


class T:
    @staticmethod
    def Tensor(shape, dtype="float16", name="t"):
        return Buffer(name, shape, dtype)

    @staticmethod
    def alloc_shared(shape, dtype, name="smem"):
        buf = Buffer(name, shape, dtype, "shared")
        current().smem += buf.nbytes
        current().emit("alloc_shared", buf)
        return buf

    @staticmethod
    def alloc_fragment(shape, dtype, name="frag"):
        buf = Buffer(name, shape, dtype, "fragment")
        current().regs += buf.nbytes // 4
        current().emit("alloc_fragment", buf)
        return buf

    @staticmethod
    def Pipelined(extent, num_stages=2):
        current().emit("pipeline", extent, num_stages)
        return range(extent)

    @staticmethod
    def copy(src, dst):
        s = src.shape if isinstance(src, (Buffer, Region)) else None
        d = dst.shape if isinstance(dst, (Buffer, Region)) else None
        if s != d:
            raise ShapeError("T.copy shape mismatch: " + f"{s} vs {d}")
        current().emit("copy", s)

    @staticmethod
    def clear(buf):
        current().emit("clear", buf.name)

    @staticmethod
    def gemm(a, b, c, transpose_a=False, transpose_b=False):
        m, k = a.shape[::-1] if transpose_a else a.shape
        k2, n = b.shape[::-1] if transpose_b else b.shape
        if k != k2:
            raise ShapeError("T.gemm reduction dims " + f"disagree: {k} != {k2} (A {a.shape}, B {b.shape})")
        if c.shape != (m, n):
            raise ShapeError(f"T.gemm output {c.shape} != {(m, n)}")
        current().emit("gemm", m, n, k)


@contextlib.contextmanager
def tracing():
    global _TRACE
    previous, _TRACE = _TRACE, Trace()
    try:
        yield _TRACE
    except ShapeError as err:
        err.add_note(f"while tracing {len(_TRACE.ops)} ops")
        raise
    finally:
        _TRACE = previous


def kernel(func):
    @functools.wraps(func)
    def trace(*args, **kwargs):
        with tracing() as t:
            func(*args, **kwargs)
        return t

    return trace


@kernel
def matmul(A, B, C, block_M, block_N, block_K, split_k=1, num_stages=2):
    M, K = A.shape
    _, N = B.shape
    k_per_split = K // split_k
    # The bug: the shared tile of A is sized with block_K // split_k but the copy
    # reads block_K columns per iteration.
    a_tile_k = block_K // split_k if split_k > 1 else block_K
    A_shared = T.alloc_shared((block_M, a_tile_k), A.dtype, "A_shared")
    B_shared = T.alloc_shared((block_K, block_N), B.dtype, "B_shared")
    C_local = T.alloc_fragment((block_M, block_N), "float32", "C_local")
    T.clear(C_local)
    for ko in T.Pipelined(k_per_split // block_K, num_stages=num_stages):
        T.copy(A[0:block_M, ko * block_K:(ko + 1) * block_K], A_shared)
        T.copy(B[ko * block_K:(ko + 1) * block_K, 0:block_N], B_shared)
        T.gemm(A_shared, B_shared, C_local)
    T.copy(C_local, C[0:block_M, 0:block_N])


def occupancy(trace, smem_limit=96 * 1024, reg_limit=65536):
    if trace.smem == 0:
        return 0
    by_smem = smem_limit // trace.smem
    by_regs = reg_limit // max(trace.regs, 1)
    return max(0, min(by_smem, by_regs, 16))


def flops(trace):
    return sum(2 * op[1] * op[2] * op[3] for op in trace.ops if op[0] == "gemm")


def describe(trace):
    counts = {}
    for op in trace.ops:
        counts[op[0]] = counts.get(op[0], 0) + 1
    return ", ".join(f"{k}x{v}" for k, v in sorted(counts.items()))


class Config:
    def __init__(self, block_M, block_N, block_K, split_k=1, num_stages=2):
        self.block_M = block_M
        self.block_N = block_N
        self.block_K = block_K
        self.split_k = split_k
        self.num_stages = num_stages

    def as_kwargs(self):
        return dict(
            block_M=self.block_M,
            block_N=self.block_N,
            block_K=self.block_K,
            split_k=self.split_k,
            num_stages=self.num_stages,
        )

    def __str__(self):
        return f"{self.block_M}x{self.block_N}x{self.block_K}/s{self.split_k}/p{self.num_stages}"


def search_space():
    for bm, bn, bk in itertools.product((64, 128), (64, 128), (32, 64)):
        if bm * bn > 128 * 64:
            continue
        yield Config(bm, bn, bk)


def run_config(cfg, M=256, N=256, K=512):
    A = T.Tensor((M, K), "float16", "A")
    B = T.Tensor((K, N), "float16", "B")
    C = T.Tensor((M, N), "float32", "C")
    trace = matmul(A, B, C, **cfg.as_kwargs())
    return trace


def report(rows):
    widths = [max(len(str(r[i])) for r in rows) for i in range(len(rows[0]))]
    for row in rows:
        print("  ".join(str(c).rjust(w) for c, w in zip(row, widths)))


def autotune():
    rows = [("config", "smem", "occ", "gflop", "ops")]
    best = None
    for cfg in search_space():
        trace = run_config(cfg)
        occ = occupancy(trace)
        rows.append((str(cfg), trace.smem, occ, flops(trace) / 1e9, describe(trace)))
        if best is None or occ > best[1]:
            best = (cfg, occ)
    report(rows)
    return best[0]


def main():
    best = autotune()
    print("best:", best)
    # The configuration from the bug report, kept as is.
    with __freeze__:
        split = Config(best.block_M, best.block_N, 64, split_k=2, num_stages=3)
    trace = run_config(split, K=1024)
    print("split-k:", describe(trace))


main()
