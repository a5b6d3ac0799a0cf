"""A bug report in the style of a GPU tile-kernel DSL issue, runnable with plain python3.

A tiny tile DSL (`T.Kernel`, `T.alloc_shared`, `T.Pipelined`, `T.copy`, `T.gemm`, ...)
traces a kernel body into a list of ops and checks shapes as it goes. The matmul
below allocates B's tile as (block_K, block_N) but asks for `transpose_B=True`, so
`T.gemm` sees K=32 on A and K=128 on B and fails with "T.gemm K shape check failed",
after a good deal of autotuning, benchmarking and printing that has nothing to do
with it. Run: python3 tile_kernel_bug.py
"""

import itertools
import math
import sys
from dataclasses import dataclass, field

# ---------------------------------------------------------------------------
# The DSL
# ---------------------------------------------------------------------------

DTYPE_BYTES = {"float16": 2, "bfloat16": 2, "float32": 4, "int8": 1}


class DSLError(Exception):
    pass


@dataclass
class Buffer:
    name: str
    shape: tuple
    dtype: str
    scope: str = "global"

    @property
    def nbytes(self):
        return math.prod(self.shape) * DTYPE_BYTES[self.dtype]

    def __getitem__(self, index):
        return Region(self, index if isinstance(index, tuple) else (index,))

    def __repr__(self):
        dims = ", ".join(str(d) for d in self.shape)
        return f"{self.name}[{dims}]:{self.dtype}@{self.scope}"


@dataclass
class Region:
    buffer: Buffer
    index: tuple

    @property
    def shape(self):
        return self.buffer.shape


@dataclass
class Op:
    kind: str
    args: tuple
    attrs: dict = field(default_factory=dict)

    def render(self):
        args = ", ".join(repr(a.buffer if isinstance(a, Region) else a) for a in self.args)
        attrs = "".join(f", {k}={v}" for k, v in sorted(self.attrs.items()))
        return f"T.{self.kind}({args}{attrs})"


class Trace:
    """The kernel being traced: ops in order and the buffers they use."""

    def __init__(self, name):
        self.name = name
        self.ops = []
        self.buffers = []
        self.grid = ()
        self.threads = 0

    def add(self, kind, *args, **attrs):
        self.ops.append(Op(kind, args, attrs))

    def shared_bytes(self):
        return sum(b.nbytes for b in self.buffers if b.scope == "shared")


_TRACE = []


def _current():
    if not _TRACE:
        raise DSLError("T.* used outside of a T.Kernel")
    return _TRACE[-1]


class _KernelScope:
    def __init__(self, grid, threads):
        self.grid = grid
        self.threads = threads

    def __enter__(self):
        trace = _current()
        trace.grid = self.grid
        trace.threads = self.threads
        return tuple(f"b{'xyz'[i]}" for i in range(len(self.grid)))

    def __exit__(self, *exc):
        return False


def _k_extent(shape, transposed):
    return shape[0] if transposed else shape[-1]


def _check_dim(op, dim, left, right):
    if left != right:
        raise DSLError(f"T.{op} {dim} shape check failed: {left} != {right}")


class T:
    """The DSL namespace, as kernels spell it."""

    @staticmethod
    def Tensor(shape, dtype="float16", name="arg"):
        return Buffer(name, tuple(shape), dtype)

    @staticmethod
    def Kernel(*grid, threads=128):
        return _KernelScope(grid, threads)

    @staticmethod
    def alloc_shared(shape, dtype, name="shared"):
        buf = Buffer(f"{name}{len(_current().buffers)}", tuple(shape), dtype, "shared")
        _current().buffers.append(buf)
        return buf

    @staticmethod
    def alloc_fragment(shape, dtype, name="frag"):
        buf = Buffer(f"{name}{len(_current().buffers)}", tuple(shape), dtype, "local.fragment")
        _current().buffers.append(buf)
        return buf

    @staticmethod
    def clear(buf):
        _current().add("clear", buf)

    @staticmethod
    def Pipelined(extent, num_stages=2):
        _current().add("pipelined", extent, num_stages=num_stages)
        # Tracing needs one iteration: the body does the same thing every time.
        return range(min(extent, 1))

    @staticmethod
    def copy(src, dst):
        _current().add("copy", src, dst)

    @staticmethod
    def gemm(a, b, c, transpose_A=False, transpose_B=False):
        _check_dim("gemm", "K", _k_extent(a.shape, transpose_A), _k_extent(b.shape, not transpose_B))
        m = a.shape[1] if transpose_A else a.shape[0]
        n = b.shape[0] if transpose_B else b.shape[1]
        _check_dim("gemm", "M", m, c.shape[0])
        _check_dim("gemm", "N", n, c.shape[1])
        _current().add("gemm", a, b, c, transpose_A=transpose_A, transpose_B=transpose_B)

    @staticmethod
    def ceildiv(a, b):
        return (a + b - 1) // b


def prim_func(fn):
    """Traces `fn` into a Trace, as a real DSL would lower it to IR."""

    def build(*args):
        trace = Trace(fn.__name__)
        _TRACE.append(trace)
        try:
            fn(*args)
        finally:
            _TRACE.pop()
        return trace

    build.__name__ = fn.__name__
    return build


def print_trace(trace, out=sys.stdout):
    print(f"kernel {trace.name} grid={trace.grid} threads={trace.threads}", file=out)
    for buf in trace.buffers:
        print(f"  alloc {buf!r} ({buf.nbytes} bytes)", file=out)
    for op in trace.ops:
        print(f"  {op.render()}", file=out)


# ---------------------------------------------------------------------------
# Configuration and autotuning
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class GemmConfig:
    block_M: int = 128
    block_N: int = 128
    block_K: int = 32
    num_stages: int = 2
    threads: int = 128

    def shared_bytes(self, dtype="float16"):
        per_stage = (self.block_M + self.block_N) * self.block_K * DTYPE_BYTES[dtype]
        return per_stage * self.num_stages

    def label(self):
        return f"{self.block_M}x{self.block_N}x{self.block_K}/s{self.num_stages}/t{self.threads}"


@dataclass
class Device:
    name: str = "SimGPU-80"
    sms: int = 80
    shared_per_sm: int = 164 * 1024
    tflops: float = 120.0
    bandwidth_gbs: float = 1500.0


def config_space():
    for bm, bn, bk, stages, threads in itertools.product(
        (64, 128), (64, 128), (32, 64), (2, 3), (128, 256)
    ):
        yield GemmConfig(bm, bn, bk, stages, threads)


def estimate_latency_us(config, device, M, N, K, dtype="float16"):
    """A roofline-ish model: not accurate, but deterministic and cheap."""
    if config.shared_bytes(dtype) > device.shared_per_sm:
        return math.inf
    tiles = math.ceil(M / config.block_M) * math.ceil(N / config.block_N)
    waves = math.ceil(tiles / device.sms)
    flops = 2 * M * N * K
    compute_us = flops / (device.tflops * 1e12) * 1e6
    bytes_moved = (M * K + K * N) * DTYPE_BYTES[dtype] * (1 + 64 / config.block_K)
    memory_us = bytes_moved / (device.bandwidth_gbs * 1e9) * 1e6
    occupancy = min(1.0, config.threads / 256 + 0.25 * (config.num_stages - 1))
    return max(compute_us, memory_us) * waves / max(tiles / device.sms, 1) / occupancy


def autotune(M, N, K, device, top=3):
    results = []
    for config in config_space():
        latency = estimate_latency_us(config, device, M, N, K)
        if math.isfinite(latency):
            results.append((latency, config))
    results.sort(key=lambda r: (r[0], r[1].label()))
    return results[:top]


def report(results, M, N, K):
    print(f"autotune results for M={M} N={N} K={K}")
    print(f"{'rank':>4}  {'config':<22} {'latency (us)':>12} {'TFLOPS':>8}")
    for rank, (latency, config) in enumerate(results, 1):
        tflops = 2 * M * N * K / (latency * 1e-6) / 1e12
        print(f"{rank:>4}  {config.label():<22} {latency:>12.2f} {tflops:>8.1f}")


def benchmark(fn, repeats=5):
    """Pretend-benchmark: calls `fn` a few times and reports a stable figure."""
    samples = [fn() for _ in range(repeats)]
    samples.sort()
    return samples[len(samples) // 2]


# ---------------------------------------------------------------------------
# The kernel with the bug
# ---------------------------------------------------------------------------


def matmul(M, N, K, config, dtype="float16", accum_dtype="float32"):
    block_M, block_N, block_K = config.block_M, config.block_N, config.block_K

    @prim_func
    def main(A, B, C):
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=config.threads) as (bx, by):
            A_shared = T.alloc_shared((block_M, block_K), dtype, name="A_shared")
            # BUG: B is read as (N, K) below (transpose_B=True), but its tile is (K, N).
            B_shared = T.alloc_shared((block_K, block_N), dtype, name="B_shared")
            C_local = T.alloc_fragment((block_M, block_N), accum_dtype, name="C_local")
            T.clear(C_local)
            for k in T.Pipelined(T.ceildiv(K, block_K), num_stages=config.num_stages):
                T.copy(A[by * block_M, k * block_K], A_shared)
                T.copy(B[bx * block_N, k * block_K], B_shared)
                T.gemm(A_shared, B_shared, C_local, transpose_B=True)
            T.copy(C_local, C[by * block_M, bx * block_N])

    A = T.Tensor((M, K), dtype, name="A")
    B = T.Tensor((N, K), dtype, name="B")
    C = T.Tensor((M, N), accum_dtype, name="C")
    return main, (A, B, C)


def describe_problem(M, N, K, device):
    flops = 2 * M * N * K
    print(f"device: {device.name} ({device.sms} SMs, {device.tflops} TFLOPS peak)")
    print(f"problem: C[{M},{N}] = A[{M},{K}] @ B[{N},{K}]^T  ({flops / 1e9:.1f} GFLOP)")


def main():
    M, N, K = 1024, 1024, 512
    device = Device()
    describe_problem(M, N, K, device)
    results = autotune(M, N, K, device)
    report(results, M, N, K)
    best = results[0][1]
    median = benchmark(lambda: estimate_latency_us(best, device, M, N, K))
    print(f"picked {best.label()}: {median:.2f} us, {best.shared_bytes()} bytes of shared memory")
    kernel, args = matmul(M, N, K, best)
    trace = kernel(*args)
    print_trace(trace)
    print(f"shared memory: {trace.shared_bytes()} bytes")


if __name__ == "__main__":
    main()
