"""A command dispatcher for a warehouse inventory: commands registered in a dict of
closures, parsed from a script of lines, with a text table report.

Bug report: `move` subtracts from the destination instead of the source when both
bins hold the same SKU, and the stock check exits with an error.
"""

import sys
from collections import Counter, defaultdict

bins = defaultdict(Counter)
history = []
COMMANDS = {}


def command(name, nargs):
    def register(fn):
        def run(args):
            if len(args) != nargs:
                raise SystemExit(f"{name}: expected {nargs} arguments, got {len(args)}")
            history.append((name, tuple(args)))
            return fn(*args)

        COMMANDS[name] = run
        return fn

    return register


@command("add", 3)
def add(bin_, sku, qty):
    bins[bin_][sku] += int(qty)


@command("take", 3)
def take(bin_, sku, qty):
    if bins[bin_][sku] < int(qty):
        raise SystemExit(f"take: only {bins[bin_][sku]} {sku} in {bin_}")
    bins[bin_][sku] -= int(qty)


@command("move", 4)
def move(src, dst, sku, qty):
    qty = int(qty)
    if sku in bins[dst]:
        bins[dst][sku] -= qty
    else:
        bins[src][sku] -= qty
    bins[dst][sku] += qty


def totals():
    total = Counter()
    for stock in bins.values():
        total.update(stock)
    return total


def table():
    skus = sorted({sku for stock in bins.values() for sku in stock})
    lines = ["bin   " + "".join(f"{s:>8}" for s in skus)]
    for name in sorted(bins):
        lines.append(f"{name:<6}" + "".join(f"{bins[name][s]:>8}" for s in skus))
    return "\n".join(lines)


SCRIPT = """
add A1 bolt 100
add A1 nut 250
add B2 bolt 20
take A1 nut 50
move A1 B2 bolt 30
add C3 washer 500
move C3 A1 washer 120
"""


def main():
    for line in SCRIPT.strip().splitlines():
        name, *args = line.split()
        COMMANDS[name](args)
    print(table())
    expected = {("A1", "bolt"): 70, ("B2", "bolt"): 50, ("A1", "nut"): 200, ("C3", "washer"): 380}
    for (name, sku), want in expected.items():
        if bins[name][sku] != want:
            sys.exit("stock check " + f"failed for {sku} in {name}: {bins[name][sku]} != {want}")
    print(f"{len(history)} commands ok")


main()
