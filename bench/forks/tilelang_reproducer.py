"""autodd's result on bench/tilelang/cases/gemm_autotune.py (bench/results/tilelang-2026-12-03.md):
a candidate of the size most of a reduction's runs have, for bench/forks/run."""

import itertools
import tilelang.language as T
class TileConfig:
    b_pad_k = 1
class Problem:
    dtype = ''
    accum_dtype = ''
def matmul_epilogue():
    dtype, accum_dtype = problem.dtype, problem.accum_dtype
    @T.prim_func
    def main():
        T.gemm(T.alloc_shared((0, 0), dtype), T.alloc_shared((config.b_pad_k, 0), dtype), T.alloc_fragment((0, 0), accum_dtype))
def candidates(kinds):
    for config, kind in itertools.product([TileConfig()], kinds):
        yield config, 0
problem = Problem()
for config, kind in candidates(['']):
    [matmul_epilogue() for activation in ('',)]
