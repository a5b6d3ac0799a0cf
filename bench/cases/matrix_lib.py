"""A pure-Python matrix type with operator overloading, broadcasting of scalars,
LU decomposition and a least-squares fit.

Bug report: `Matrix.__matmul__` checks `self.cols == other.cols` instead of
`self.cols == other.rows`, so fitting a line to 5 points fails with a shape error
although the shapes are valid.
"""

import math
from numbers import Number


class ShapeMismatch(ValueError):
    pass


class Matrix:
    def __init__(self, rows):
        rows = [list(map(float, r)) for r in rows]
        if not rows or any(len(r) != len(rows[0]) for r in rows):
            raise ValueError("ragged or empty matrix")
        self.data = rows

    @classmethod
    def zeros(cls, n, m):
        return cls([[0.0] * m for _ in range(n)])

    @classmethod
    def identity(cls, n):
        return cls([[1.0 if i == j else 0.0 for j in range(n)] for i in range(n)])

    @property
    def rows(self):
        return len(self.data)

    @property
    def cols(self):
        return len(self.data[0])

    @property
    def shape(self):
        return (self.rows, self.cols)

    def __getitem__(self, ij):
        i, j = ij
        return self.data[i][j]

    def __setitem__(self, ij, value):
        i, j = ij
        self.data[i][j] = float(value)

    def _elementwise(self, other, op):
        if isinstance(other, Number):
            return Matrix([[op(x, other) for x in row] for row in self.data])
        if self.shape != other.shape:
            raise ShapeMismatch(f"elementwise {self.shape} vs {other.shape}")
        return Matrix([[op(a, b) for a, b in zip(r1, r2)] for r1, r2 in zip(self.data, other.data)])

    def __add__(self, other):
        return self._elementwise(other, lambda a, b: a + b)

    def __sub__(self, other):
        return self._elementwise(other, lambda a, b: a - b)

    def __mul__(self, other):
        return self._elementwise(other, lambda a, b: a * b)

    __rmul__ = __mul__

    def __neg__(self):
        return self * -1

    @property
    def T(self):
        return Matrix([list(col) for col in zip(*self.data)])

    def __matmul__(self, other):
        if self.cols != other.cols:
            raise ShapeMismatch("matmul " + f"{self.shape} @ {other.shape}")
        cols = list(zip(*other.data))
        return Matrix([[sum(a * b for a, b in zip(row, col)) for col in cols] for row in self.data])

    def lu(self):
        n = self.rows
        if n != self.cols:
            raise ShapeMismatch("lu needs a square matrix")
        L, U = Matrix.identity(n), Matrix(self.data)
        perm = list(range(n))
        for k in range(n):
            pivot = max(range(k, n), key=lambda i: abs(U[i, k]))
            if math.isclose(U[pivot, k], 0.0, abs_tol=1e-12):
                raise ZeroDivisionError("singular matrix")
            U.data[k], U.data[pivot] = U.data[pivot], U.data[k]
            perm[k], perm[pivot] = perm[pivot], perm[k]
            for j in range(k):
                L.data[k][j], L.data[pivot][j] = L.data[pivot][j], L.data[k][j]
            for i in range(k + 1, n):
                factor = U[i, k] / U[k, k]
                L[i, k] = factor
                for j in range(k, n):
                    U[i, j] = U[i, j] - factor * U[k, j]
        return perm, L, U

    def solve(self, b):
        perm, L, U = self.lu()
        n = self.rows
        y = [0.0] * n
        for i in range(n):
            y[i] = b[perm[i]] - sum(L[i, j] * y[j] for j in range(i))
        x = [0.0] * n
        for i in reversed(range(n)):
            x[i] = (y[i] - sum(U[i, j] * x[j] for j in range(i + 1, n))) / U[i, i]
        return x

    def __repr__(self):
        body = "\n ".join(" ".join(f"{x:8.3f}" for x in row) for row in self.data)
        return f"[{body}]"


def fit_line(points):
    A = Matrix([[x, 1.0] for x, _ in points])
    b = Matrix([[y] for _, y in points])
    normal = A.T @ A
    rhs = A.T @ b
    slope, intercept = normal.solve([r[0] for r in rhs.data])
    return slope, intercept


def main():
    m = Matrix([[4, 3], [6, 3]])
    perm, L, U = m.lu()
    print("L =", L)
    print("U =", U)
    print("solve:", m.solve([10, 12]))
    print("2*m - m =", 2 * m - m)
    points = [(0, 1.1), (1, 2.9), (2, 5.2), (3, 7.1), (4, 8.8)]
    slope, intercept = fit_line(points)
    print(f"fit: y = {slope:.3f} x + {intercept:.3f}")


main()
