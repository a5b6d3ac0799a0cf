"""graphdsl: a tracing DSL in miniature, the library the heavy benchmark case uses. A
model-building function runs on symbolic tensors, every op becomes a node of a graph,
and the graph goes through the passes a kernel compiler runs (common-subexpression and
dead-code elimination, fusion into kernels, shape inference kernel by kernel, lowering
against a pattern table, a memory plan). It lives beside the program, as a user's DSL
is installed beside their code: autodd reduces the program, not the library."""

import itertools
from collections import defaultdict
from dataclasses import dataclass, field


class ShapeError(Exception):
    pass


@dataclass(eq=False)
class Node:
    op: str
    inputs: list
    attrs: dict = field(default_factory=dict)
    shape: tuple = ()
    id: int = 0

    def key(self):
        return (self.op, tuple(i.id for i in self.inputs), tuple(sorted(self.attrs.items())))


class Graph:
    def __init__(self):
        self.nodes = []
        self.outputs = []
        self.counter = itertools.count()

    def add(self, op, inputs, **attrs):
        node = Node(op, list(inputs), attrs, id=next(self.counter))
        self.nodes.append(node)
        return node


GRAPH = None


class Sym:
    """A symbolic tensor: what the model function computes with while tracing."""

    def __init__(self, node):
        self.node = node

    def __matmul__(self, other):
        return Sym(GRAPH.add("matmul", [self.node, other.node]))

    def __add__(self, other):
        return Sym(GRAPH.add("add", [self.node, other.node]))

    def __mul__(self, other):
        return Sym(GRAPH.add("mul", [self.node, other.node]))

    def relu(self):
        return Sym(GRAPH.add("relu", [self.node]))

    def softmax(self, axis=-1):
        return Sym(GRAPH.add("softmax", [self.node], axis=axis))

    def transpose(self):
        return Sym(GRAPH.add("transpose", [self.node]))

    def reshape(self, *shape):
        return Sym(GRAPH.add("reshape", [self.node], shape=shape))


def tensor(name, *shape):
    return Sym(GRAPH.add("input", [], name=name, shape=shape))


def infer(node):
    a = [i.shape for i in node.inputs]
    if node.op == "input":
        return node.attrs["shape"]
    if node.op == "matmul":
        (m, k), (k2, n) = a
        if k != k2:
            raise ShapeError(f"matmul inner dims differ: {k} != {k2}")
        return (m, n)
    if node.op in ("add", "mul"):
        if a[0] != a[1] and a[1] != (a[0][-1],):
            raise ShapeError(f"{node.op} shapes differ: {a[0]} vs {a[1]}")
        return a[0]
    if node.op in ("relu", "softmax"):
        return a[0]
    if node.op == "transpose":
        return (a[0][1], a[0][0])
    if node.op == "reshape":
        size = 1
        for d in a[0]:
            size *= d
        new = node.attrs["shape"]
        if size != new[0] * new[1]:
            raise ShapeError(f"reshape of {a[0]} to {new}")
        return new
    raise ShapeError(f"unknown op {node.op}")


def shape_pass(graph, group_of, kernels):
    for node in graph.nodes:
        try:
            node.shape = infer(node)
        except ShapeError as e:
            raise ShapeError(f"{e} in kernel {group_of[node.id]} of {kernels}") from None


def cse_pass(graph):
    seen, replace = {}, {}
    for node in graph.nodes:
        node.inputs = [replace.get(i.id, i) for i in node.inputs]
        k = node.key()
        if k in seen and node.op != "input":
            replace[node.id] = seen[k]
        else:
            seen[k] = node
    graph.nodes = [n for n in graph.nodes if n.id not in replace]
    graph.outputs = [replace.get(o.id, o) for o in graph.outputs]


def dce_pass(graph):
    live, stack = set(), list(graph.outputs)
    while stack:
        node = stack.pop()
        if node.id in live:
            continue
        live.add(node.id)
        stack.extend(node.inputs)
    graph.nodes = [n for n in graph.nodes if n.id in live]


ELEMENTWISE = {"add", "mul", "relu"}


def fuse_pass(graph):
    users = defaultdict(list)
    for node in graph.nodes:
        for i in node.inputs:
            users[i.id].append(node)
    group_of, groups = {}, []
    for node in graph.nodes:
        lead = node.inputs[0] if node.inputs else None
        if node.op in ELEMENTWISE and lead is not None and len(users[lead.id]) == 1 and lead.id in group_of:
            group = group_of[lead.id]
        else:
            group = len(groups)
            groups.append([])
        groups[group].append(node)
        group_of[node.id] = group
    return groups, group_of


def memory_plan(graph):
    last_use = {}
    for step, node in enumerate(graph.nodes):
        for i in node.inputs:
            last_use[i.id] = step
    free, offsets, top = [], {}, 0
    for step, node in enumerate(graph.nodes):
        size = node.shape[0] * node.shape[1] * 4
        slot = next((f for f in free if f[1] >= size), None)
        if slot:
            free.remove(slot)
            offsets[node.id] = slot[0]
        else:
            offsets[node.id] = top
            top += size
        for i in node.inputs:
            if last_use.get(i.id) == step:
                free.append((offsets[i.id], i.shape[0] * i.shape[1] * 4))
    return top

# Rewrite patterns the lowering tries at every node, as a compiler's pattern tables do.
PATTERNS = [(a, b, c) for a in ("matmul", "add", "mul", "relu") for b in ("input", "matmul", "add", "relu", "softmax")
            for c in (1, 2)]


def legalize(graph):
    """Matches every node against the pattern table: how many rewrites would apply."""
    matched = 0
    for node in graph.nodes:
        for op, lead, arity in PATTERNS:
            if node.op == op and len(node.inputs) == arity and node.inputs[0].op == lead:
                matched += 1
    return matched


def lower(groups):
    """Each kernel's code, as text."""
    code = []
    for group in groups:
        lines = [f"  t{n.id} = {n.op}({', '.join(f't{i.id}' for i in n.inputs)})  # {n.shape}" for n in group]
        code.append("\n".join(lines))
    return sum(len(c) for c in code)


def compile_graph(graph):
    """The pipeline every kernel goes through: CSE and DCE to a fixed point,
    legalization (three rounds of pattern matching), fusion, shape inference, lowering,
    a memory plan."""
    for _ in range(3):
        cse_pass(graph)
        dce_pass(graph)
    matched = sum(legalize(graph) for _ in range(3))
    groups, group_of = fuse_pass(graph)
    shape_pass(graph, group_of, len(groups))
    size = lower(groups)
    return {"nodes": len(graph.nodes), "kernels": len(groups), "matched": matched, "code": size,
            "peak": memory_plan(graph)}


def trace(build, *args):
    """Runs `build` on symbolic tensors and compiles the graph it made."""
    global GRAPH
    GRAPH = Graph()
    GRAPH.outputs = [build(*args).node]
    return compile_graph(GRAPH)
