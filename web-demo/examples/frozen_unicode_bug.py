"""Prices in a café's menu: `total()` rounds each line before adding, so the bill is off
by a cent. The setup marked frozen must stay as it is (autodd never touches it), and the
non-ASCII names show that columns count UTF-16 units.

Run: python3 frozen_unicode_bug.py   (it needs the `autodd` module only for `__freeze__`)
"""

from autodd import __freeze__

with __freeze__:
    MENU = {"café crème": 2.675, "thé 🍵": 1.335, "croissant 🥐": 1.105}
    ORDER = ["café crème", "thé 🍵", "croissant 🥐"]

TAX = 0.0


def price(item, quantity=1):
    return MENU[item] * quantity * (1 + TAX)


def total(order):
    # BUG: rounding each line, instead of the sum, loses a cent.
    return sum(round(price(item), 2) for item in order)


def receipt(order):
    lines = [f"{item:<14}{price(item):>8.3f}" for item in order]
    lines.append(f"{'total 🧾':<14}{total(order):>8.2f}")
    return "\n".join(lines)


def main():
    print(receipt(ORDER))
    exact = round(sum(price(item) for item in ORDER), 2)
    assert total(ORDER) == exact, f"total {total(ORDER)} != {exact}"


main()
