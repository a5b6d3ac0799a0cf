"""A GEMM tile sweep written against tiledsl, the tile-kernel DSL beside it: ten
block shapes are compiled for a 160-cube problem, as an autotuner does, the one with
the shortest listing is picked, and a small instance of it is checked against a plain
matrix product. Config 6 was given a stale B tile depth, so its gemm's K shape check
fails while it compiles; a candidate that loses that bug compiles every config and
runs the check, one that keeps it stops at config 6."""

from tiledsl import T, kernel

M = N = K = 160
CONFIGS = [(64, 64, 32), (64, 128, 32), (128, 64, 32), (128, 128, 32), (64, 64, 64),
           (64, 128, 64), (128, 64, 64), (128, 128, 64), (32, 64, 32), (64, 32, 32)]
# The B tile depth of each config; config 6 kept the depth of the config before it.
B_DEPTH = [k for _, _, k in CONFIGS]
B_DEPTH[6] = 32


def matmul(m, n, k, block_m, block_n, block_k, b_depth):
    @kernel(f"matmul_{block_m}x{block_n}x{block_k}")
    def main(A: T.Tensor((m, k)), B: T.Tensor((k, n)), C: T.Tensor((m, n))):
        for bx, by in T.Kernel(n // block_n, m // block_m):
            a_tile = T.alloc_shared((block_m, block_k))
            b_tile = T.alloc_shared((b_depth, block_n))
            c_tile = T.alloc_fragment((block_m, block_n))
            T.clear(c_tile)
            for ko in T.Pipelined(k // block_k):
                T.copy(A[by * block_m, ko * block_k], a_tile)
                T.copy(B[ko * block_k, bx * block_n], b_tile)
                T.gemm(a_tile, b_tile, c_tile)
            T.copy(c_tile, C[by * block_m, bx * block_n])

    return main


def reference(a, b):
    bt = list(zip(*b))
    return [[sum(x * y for x, y in zip(row, col)) for col in bt] for row in a]


def check(config, size):
    bm, bn, bk = (min(d, size) for d in config)
    kern = matmul(size, size, size, bm, bn, bk, bk)
    a = [[(i * 7 + j * 3) % 11 - 5.0 for j in range(size)] for i in range(size)]
    b = [[(i * 5 + j) % 13 - 6.0 for j in range(size)] for i in range(size)]
    c = kern(a, b, [[0.0] * size for _ in range(size)])
    wrong = sum(x != y for got, want in zip(c, reference(a, b)) for x, y in zip(got, want))
    print(f"{kern.name} at {size}: {wrong} of {size * size} wrong")


if __name__ == "__main__":
    best = None
    for i, (bm, bn, bk) in enumerate(CONFIGS):
        kern = matmul(M, N, K, bm, bn, bk, B_DEPTH[i])
        size = len(kern.text)
        print(f"config {i}: {kern.name}, {len(kern.code)} instructions, {size} bytes of listing")
        if best is None or size < best[0]:
            best = (size, CONFIGS[i])
    check(best[1], 48)
