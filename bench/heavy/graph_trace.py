"""A transformer-like model written against graphdsl, the tracing DSL beside it. Layer
93 of 96 gets an output projection whose width comes from a stale table entry, and
the DSL's shape inference rejects it, naming the kernel: to say which, every run
traces the whole model and runs the DSL's passes, some tens of milliseconds of pure
Python in the library, whatever the reduction leaves of this file."""

from graphdsl import tensor, trace

HIDDEN = 64
HEADS = 8
LAYERS = 96
# Per-layer projection widths; entry 93 was left at the old head size.
WIDTHS = [HIDDEN] * LAYERS
WIDTHS[93] = 96


def attention(x, layer):
    out = None
    for head in range(HEADS):
        wq = tensor(f"wq{layer}.{head}", HIDDEN, HIDDEN)
        wk = tensor(f"wk{layer}.{head}", HIDDEN, HIDDEN)
        wv = tensor(f"wv{layer}.{head}", HIDDEN, HIDDEN)
        q, k, v = x @ wq, x @ wk, x @ wv
        scores = (q @ k.transpose()).softmax()
        h = scores @ v
        out = h if out is None else out + h
    wo = tensor(f"wo{layer}", WIDTHS[layer], HIDDEN)
    return out @ wo


def mlp(x, layer):
    w1 = tensor(f"w1_{layer}", HIDDEN, 4 * HIDDEN)
    w2 = tensor(f"w2_{layer}", 4 * HIDDEN, HIDDEN)
    b1 = tensor(f"b1_{layer}", 4 * HIDDEN)
    return ((x @ w1) + b1).relu() @ w2


def model(tokens, layers):
    x = tensor("x", tokens, HIDDEN)
    for layer in range(layers):
        x = x + attention(x, layer)
        x = x + mlp(x, layer)
    return x


def report(tokens, stats):
    kernels, nodes = stats["kernels"], stats["nodes"]
    print(f"tokens={tokens}: {nodes} nodes in {kernels} kernels, {stats['peak']} bytes at peak")


if __name__ == "__main__":
    for tokens in (32, 128):
        report(tokens, trace(model, tokens, LAYERS))
