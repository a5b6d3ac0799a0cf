"""A small GEMM library in TileLang: plain, bias + activation epilogue, split-K and a
batched variant, with a table of tile configurations that a tuning loop traces one by
one. One configuration's shared tile for B is declared with the wrong K extent, so
tracing its kernel fails T.gemm's shape check."""

import itertools
from dataclasses import dataclass, field

import tilelang
import tilelang.language as T


@dataclass(frozen=True)
class TileConfig:
    block_M: int
    block_N: int
    block_K: int
    num_stages: int = 2
    threads: int = 128
    split_k: int = 1
    # Some hand-tuned entries pad B's tile along K for bank conflicts.
    b_pad_k: int = 0

    def name(self):
        return f"{self.block_M}x{self.block_N}x{self.block_K}s{self.num_stages}k{self.split_k}"

    def shared_bytes(self, dtype_bytes=2):
        a = self.block_M * self.block_K
        b = (self.block_K + self.b_pad_k) * self.block_N
        return (a + b) * dtype_bytes * self.num_stages


@dataclass
class Problem:
    M: int
    N: int
    K: int
    dtype: str = "float16"
    accum_dtype: str = "float"
    batch: int = 1
    tags: list = field(default_factory=list)

    def flops(self):
        return 2 * self.M * self.N * self.K * self.batch


ACTIVATIONS = ("none", "relu", "gelu_tanh", "silu")


def ceil_div(a, b):
    return (a + b - 1) // b


def fits(config, problem, smem_limit=96 * 1024):
    if problem.K % (config.block_K * config.split_k):
        return False
    if config.shared_bytes() > smem_limit:
        return False
    return problem.M % config.block_M == 0 and problem.N % config.block_N == 0


def apply_activation(x, kind):
    if kind == "relu":
        return T.max(x, 0)
    if kind == "gelu_tanh":
        return 0.5 * x * (1 + T.tanh(0.7978845608 * (x + 0.044715 * x * x * x)))
    if kind == "silu":
        return x / (1 + T.exp(-x))
    return x


def matmul(problem, config):
    M, N, K = problem.M, problem.N, problem.K
    dtype, accum_dtype = problem.dtype, problem.accum_dtype
    bM, bN, bK = config.block_M, config.block_N, config.block_K

    @T.prim_func
    def main(A: T.Tensor((M, K), dtype), B: T.Tensor((K, N), dtype), C: T.Tensor((M, N), dtype)):
        with T.Kernel(T.ceildiv(N, bN), T.ceildiv(M, bM), threads=config.threads) as (bx, by):
            A_shared = T.alloc_shared((bM, bK), dtype)
            B_shared = T.alloc_shared((bK, bN), dtype)
            C_local = T.alloc_fragment((bM, bN), accum_dtype)
            T.clear(C_local)
            for k in T.Pipelined(T.ceildiv(K, bK), num_stages=config.num_stages):
                T.copy(A[by * bM, k * bK], A_shared)
                T.copy(B[k * bK, bx * bN], B_shared)
                T.gemm(A_shared, B_shared, C_local)
            T.copy(C_local, C[by * bM, bx * bN])

    return main


def matmul_epilogue(problem, config, activation="relu"):
    M, N, K = problem.M, problem.N, problem.K
    dtype, accum_dtype = problem.dtype, problem.accum_dtype
    bM, bN, bK = config.block_M, config.block_N, config.block_K
    # Hand-tuned configurations pad the K extent of B's tile.
    bK_b = bK - config.b_pad_k if config.b_pad_k else bK

    @T.prim_func
    def main(
        A: T.Tensor((M, K), dtype),
        B: T.Tensor((K, N), dtype),
        Bias: T.Tensor((N,), dtype),
        C: T.Tensor((M, N), dtype),
    ):
        with T.Kernel(T.ceildiv(N, bN), T.ceildiv(M, bM), threads=config.threads) as (bx, by):
            A_shared = T.alloc_shared((bM, bK), dtype)
            B_shared = T.alloc_shared((bK_b, bN), dtype)
            Bias_shared = T.alloc_shared((bN,), dtype)
            C_local = T.alloc_fragment((bM, bN), accum_dtype)
            T.clear(C_local)
            T.copy(Bias[bx * bN], Bias_shared)
            for k in T.Pipelined(T.ceildiv(K, bK), num_stages=config.num_stages):
                T.copy(A[by * bM, k * bK], A_shared)
                T.copy(B[k * bK, bx * bN], B_shared)
                T.gemm(A_shared, B_shared, C_local)
            for i, j in T.Parallel(bM, bN):
                C_local[i, j] = apply_activation(C_local[i, j] + Bias_shared[j], activation)
            T.copy(C_local, C[by * bM, bx * bN])

    return main


def matmul_split_k(problem, config):
    M, N, K = problem.M, problem.N, problem.K
    dtype, accum_dtype = problem.dtype, problem.accum_dtype
    bM, bN, bK = config.block_M, config.block_N, config.block_K
    splits = config.split_k
    k_per_split = K // splits

    @T.prim_func
    def main(
        A: T.Tensor((M, K), dtype),
        B: T.Tensor((K, N), dtype),
        Partial: T.Tensor((splits, M, N), accum_dtype),
    ):
        with T.Kernel(T.ceildiv(N, bN), T.ceildiv(M, bM), splits, threads=config.threads) as (bx, by, bz):
            A_shared = T.alloc_shared((bM, bK), dtype)
            B_shared = T.alloc_shared((bK, bN), dtype)
            C_local = T.alloc_fragment((bM, bN), accum_dtype)
            T.clear(C_local)
            for k in T.Pipelined(T.ceildiv(k_per_split, bK), num_stages=config.num_stages):
                T.copy(A[by * bM, bz * k_per_split + k * bK], A_shared)
                T.copy(B[bz * k_per_split + k * bK, bx * bN], B_shared)
                T.gemm(A_shared, B_shared, C_local)
            T.copy(C_local, Partial[bz, by * bM, bx * bN])

    return main


def reduce_partials(problem, splits, block=128):
    M, N = problem.M, problem.N

    @T.prim_func
    def main(Partial: T.Tensor((splits, M, N), problem.accum_dtype), C: T.Tensor((M, N), problem.dtype)):
        with T.Kernel(T.ceildiv(N, block), M, threads=block) as (bx, by):
            acc = T.alloc_fragment((block,), problem.accum_dtype)
            T.clear(acc)
            for s in T.serial(splits):
                for j in T.Parallel(block):
                    acc[j] += Partial[s, by, bx * block + j]
            for j in T.Parallel(block):
                C[by, bx * block + j] = acc[j]

    return main


def batched_matmul(problem, config):
    Bt, M, N, K = problem.batch, problem.M, problem.N, problem.K
    dtype, accum_dtype = problem.dtype, problem.accum_dtype
    bM, bN, bK = config.block_M, config.block_N, config.block_K

    @T.prim_func
    def main(
        A: T.Tensor((Bt, M, K), dtype),
        B: T.Tensor((Bt, K, N), dtype),
        C: T.Tensor((Bt, M, N), dtype),
    ):
        with T.Kernel(T.ceildiv(N, bN), T.ceildiv(M, bM), Bt, threads=config.threads) as (bx, by, bz):
            A_shared = T.alloc_shared((bM, bK), dtype)
            B_shared = T.alloc_shared((bK, bN), dtype)
            C_local = T.alloc_fragment((bM, bN), accum_dtype)
            T.clear(C_local)
            for k in T.Pipelined(T.ceildiv(K, bK), num_stages=config.num_stages):
                T.copy(A[bz, by * bM, k * bK], A_shared)
                T.copy(B[bz, k * bK, bx * bN], B_shared)
                T.gemm(A_shared, B_shared, C_local)
            T.copy(C_local, C[bz, by * bM, bx * bN])

    return main


CONFIGS = [
    TileConfig(128, 128, 32, num_stages=3),
    TileConfig(128, 128, 64, num_stages=2),
    TileConfig(64, 128, 32, num_stages=4, threads=128),
    TileConfig(128, 256, 32, num_stages=2, threads=256),
    TileConfig(64, 64, 64, num_stages=2, split_k=4),
    TileConfig(128, 128, 64, num_stages=2, b_pad_k=16),
]

PROBLEMS = [
    Problem(1024, 1024, 1024, tags=["square"]),
    Problem(2048, 512, 4096, tags=["tall", "deep"]),
    Problem(256, 1024, 2048, batch=8, tags=["batched"]),
]


def candidates(problem, kinds):
    for config, kind in itertools.product(CONFIGS, kinds):
        if not fits(config, problem):
            continue
        if kind == "split_k" and config.split_k == 1:
            continue
        if kind != "split_k" and config.split_k != 1:
            continue
        yield config, kind


def build(problem, config, kind):
    if kind == "plain":
        return [matmul(problem, config)]
    if kind == "epilogue":
        return [matmul_epilogue(problem, config, activation) for activation in ACTIVATIONS[:2]]
    if kind == "split_k":
        return [matmul_split_k(problem, config), reduce_partials(problem, config.split_k)]
    if kind == "batched":
        return [batched_matmul(problem, config)]
    raise ValueError(f"unknown kernel kind {kind}")


def estimate(problem, config):
    tiles = ceil_div(problem.M, config.block_M) * ceil_div(problem.N, config.block_N) * problem.batch
    waves = ceil_div(tiles * config.split_k, 108)
    return waves * config.block_K * config.num_stages


def tune(problem):
    kinds = ["batched"] if problem.batch > 1 else ["plain", "epilogue", "split_k"]
    results = []
    for config, kind in candidates(problem, kinds):
        funcs = build(problem, config, kind)
        results.append((estimate(problem, config), config.name(), kind, len(funcs)))
    results.sort()
    return results


def main():
    print(f"tilelang {tilelang.__version__}")
    for problem in PROBLEMS:
        ranked = tune(problem)
        best = ranked[0] if ranked else None
        print(f"{problem.M}x{problem.N}x{problem.K} b{problem.batch}: {len(ranked)} kernels, best {best}")


if __name__ == "__main__":
    main()
