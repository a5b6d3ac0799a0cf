"""tiledsl: a tile-kernel DSL in miniature, the library the tile_sweep benchmark case
uses. A kernel is a Python function over symbolic buffers, written as tile kernels
are (a grid of blocks, tiles in shared memory, a pipelined loop over K, a gemm per
step). Its first call compiles it: the body is traced once into a loop IR, lowered
(every block and every step unrolled into row instructions), each instruction's
region checked against its buffer by interval arithmetic, each gemm's shapes checked,
dependences found, and the listing printed. The compiled kernel then runs on an
interpreter over Python lists. Before its first compile a process builds the DSL's
target table (the shared-memory layout for each tile shape and element size, chosen by
simulating a warp's bank conflicts), as a real DSL's JIT sets up its backend once per
process: every run that compiles a kernel pays for it. It lives beside the program, as a user's DSL is
installed beside their code: autodd reduces the program, not the library."""

from contextlib import contextmanager


class CompileError(Exception):
    pass


class Var:
    """A loop variable: affine expressions over these are what offsets are."""

    def __init__(self, name, extent):
        self.name, self.extent = name, extent


class Expr:
    def __init__(self, terms=None, const=0):
        self.terms, self.const = dict(terms or {}), const

    @staticmethod
    def of(value):
        if isinstance(value, Expr):
            return value
        if isinstance(value, Var):
            return Expr({value: 1})
        return Expr(const=value)

    def __add__(self, other):
        other = Expr.of(other)
        terms = dict(self.terms)
        for var, coef in other.terms.items():
            terms[var] = terms.get(var, 0) + coef
        return Expr(terms, self.const + other.const)

    __radd__ = __add__

    def __mul__(self, factor):
        return Expr({v: c * factor for v, c in self.terms.items()}, self.const * factor)

    __rmul__ = __mul__

    def at(self, env):
        return self.const + sum(c * env[v] for v, c in self.terms.items())


class LoopVar(Var):
    def __add__(self, other):
        return Expr.of(self) + other

    __radd__ = __add__

    def __mul__(self, factor):
        return Expr.of(self) * factor

    __rmul__ = __mul__


class Buffer:
    def __init__(self, name, shape, scope):
        self.name, self.shape, self.scope = name, tuple(shape), scope

    def __getitem__(self, index):
        return Region(self, tuple(Expr.of(i) for i in index))


class Region:
    """A tile-sized window of a buffer at symbolic offsets."""

    def __init__(self, buffer, offsets):
        self.buffer, self.offsets = buffer, offsets


class Tracer:
    def __init__(self):
        self.body, self.loops, self.buffers = [], [], []

    def emit(self, op, *args):
        self.body.append((op, tuple(self.loops), args))


TRACER = None


class T:
    """The language: what a kernel body calls."""

    @staticmethod
    def Tensor(shape):
        return shape

    @staticmethod
    def Kernel(*extents):
        names = ("bx", "by", "bz")
        grid = [LoopVar(names[i], e) for i, e in enumerate(extents)]
        with T._loop(grid):
            yield tuple(grid) if len(grid) > 1 else grid[0]

    @staticmethod
    def Pipelined(extent):
        var = LoopVar(f"k{len(TRACER.loops)}", extent)
        with T._loop([var]):
            yield var

    @staticmethod
    @contextmanager
    def _loop(variables):
        TRACER.loops.extend(variables)
        try:
            yield
        finally:
            del TRACER.loops[-len(variables):]

    @staticmethod
    def alloc_shared(shape):
        return T._alloc(shape, "shared")

    @staticmethod
    def alloc_fragment(shape):
        return T._alloc(shape, "fragment")

    @staticmethod
    def _alloc(shape, scope):
        buffer = Buffer(f"{scope}{len(TRACER.buffers)}", shape, scope)
        TRACER.buffers.append(buffer)
        return buffer

    @staticmethod
    def clear(buffer):
        TRACER.emit("clear", buffer)

    @staticmethod
    def copy(src, dst):
        TRACER.emit("copy", as_region(src), as_region(dst))

    @staticmethod
    def gemm(a, b, c):
        TRACER.emit("gemm", a, b, c)


def as_region(value):
    if isinstance(value, Region):
        return value
    return Region(value, tuple(Expr.of(0) for _ in value.shape))


def iterations(loops):
    """Every assignment of the loop variables, outermost first."""
    envs = [{}]
    for var in loops:
        envs = [{**env, var: i} for env in envs for i in range(var.extent)]
    return envs


def rows(region, env, tile):
    """The row instructions of a copy of a `tile`-shaped window: (buffer, row, col0, cols)."""
    offsets = [o.at(env) for o in region.offsets]
    return [(region.buffer, offsets[0] + r, offsets[1], tile[1]) for r in range(tile[0])]


def check_bounds(buffer, row, col, cols, where):
    if not (0 <= row < buffer.shape[0] and 0 <= col and col + cols <= buffer.shape[1]):
        raise CompileError(f"{where}: {buffer.name}[{row}, {col}:{col + cols}] is outside {buffer.shape}")


def lower(name, tracer):
    """Unrolls the traced body into row instructions, checking each as it goes."""
    code = []
    for op, loops, args in tracer.body:
        for env in iterations(loops):
            if op == "clear":
                code.append(("clear", args[0]))
            elif op == "copy":
                src, dst = args
                tile = dst.buffer.shape if dst.buffer.scope != "global" else src.buffer.shape
                for (sb, sr, sc, n), (db, dr, dc, _) in zip(rows(src, env, tile), rows(dst, env, tile)):
                    check_bounds(sb, sr, sc, n, f"T.copy in {name}")
                    check_bounds(db, dr, dc, n, f"T.copy in {name}")
                    code.append(("row", sb, sr, sc, db, dr, dc, n))
            elif op == "gemm":
                a, b, c = args
                if a.shape[1] != b.shape[0]:
                    raise CompileError(f"T.gemm K shape check failed: {a.name} has K={a.shape[1]}, "
                                       f"{b.name} has K={b.shape[0]} in kernel {name}")
                if (a.shape[0], b.shape[1]) != c.shape:
                    raise CompileError(f"T.gemm output shape {c.shape} in kernel {name}")
                code.append(("gemm", a, b, c))
    return code


def dependences(code):
    """For each instruction, the last earlier one that wrote a row it reads."""
    last, deps = {}, []
    for i, ins in enumerate(code):
        if ins[0] == "row":
            deps.append(last.get((ins[1].name, ins[2])))
            last[(ins[4].name, ins[5])] = i
        else:
            deps.append(None)
    return deps


def listing(code, deps):
    lines = []
    for ins, dep in zip(code, deps):
        if ins[0] == "row":
            _, sb, sr, sc, db, dr, dc, n = ins
            lines.append(f"  {db.name}[{dr}, {dc}:{dc + n}] = {sb.name}[{sr}, {sc}:{sc + n}]  ; after {dep}")
        else:
            lines.append(f"  {ins[0]} {', '.join(b.name for b in ins[1:])}")
    return "\n".join(lines)


BANKS = 32
TARGET = None


def conflicts(rows, cols, size, swizzle):
    """The most accesses one bank gets when a warp's threads read a column of a
    row-major tile (`rows` by `cols` elements, one thread per row, up to 32) with rows
    XOR-swizzled by `swizzle`."""
    hits = [0] * BANKS
    for thread in range(min(rows, 32)):
        row, col = thread, 0
        word = (row * cols + (col ^ (row % swizzle) * 8 if swizzle > 1 else col)) * size // 4
        hits[word % BANKS] += 1
    return max(hits)


def target():
    """The layout table: for each (rows, cols, element size), the swizzle with the
    fewest bank conflicts."""
    global TARGET
    if TARGET is None:
        TARGET = {}
        for rows in range(8, 264, 8):
            for cols in range(8, 264, 8):
                for size in (2, 4):
                    costs = [(conflicts(rows, cols, size, s), s) for s in (1, 2, 4, 8)]
                    TARGET[rows, cols, size] = min(costs)[1]
    return TARGET


class Compiled:
    def __init__(self, name, params, code, text):
        self.name, self.params, self.code, self.text = name, params, code, text

    def __call__(self, *arrays):
        """Runs the kernel on lists of rows, one per parameter, in place."""
        memory = {p.name: a for p, a in zip(self.params, arrays)}
        for ins in self.code:
            if ins[0] == "clear":
                memory[ins[1].name] = [[0.0] * ins[1].shape[1] for _ in range(ins[1].shape[0])]
            elif ins[0] == "row":
                _, sb, sr, sc, db, dr, dc, n = ins
                memory.setdefault(db.name, [[0.0] * db.shape[1] for _ in range(db.shape[0])])
                memory[db.name][dr][dc:dc + n] = memory[sb.name][sr][sc:sc + n]
            else:
                a, b, c = (memory[x.name] for x in ins[1:])
                bt = list(zip(*b))
                for i, row in enumerate(a):
                    out = c[i]
                    for j, col in enumerate(bt):
                        out[j] += sum(x * y for x, y in zip(row, col))
        return arrays[-1]


def kernel(name):
    """Compiles the decorated function over its annotated parameter shapes."""

    def wrap(func):
        global TRACER
        target()
        TRACER = Tracer()
        params = [Buffer(p, shape, "global") for p, shape in func.__annotations__.items()]
        func(*params)
        code = lower(name, TRACER)
        text = listing(code, dependences(code))
        return Compiled(name, params, code, text)

    return wrap
