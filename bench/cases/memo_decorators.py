"""Caching and instrumentation decorators: an LRU memoizer with per-function
statistics, a timing decorator, a retry decorator with backoff, stacked on a
pricing service.

Bug report: the memoizer builds its key from the positional arguments only, so
`quote("tea", qty=10)` returns the cached price of `quote("tea", qty=1)`; the
price check raises with both prices.
"""

import functools
from collections import OrderedDict

CALLS = []


class PriceError(Exception):
    pass


def lru(maxsize=32):
    def decorate(fn):
        cache = OrderedDict()
        stats = {"hits": 0, "misses": 0}

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            key = args
            if key in cache:
                stats["hits"] += 1
                cache.move_to_end(key)
                return cache[key]
            stats["misses"] += 1
            value = fn(*args, **kwargs)
            cache[key] = value
            if len(cache) > maxsize:
                cache.popitem(last=False)
            return value

        wrapper.stats = stats
        wrapper.clear = cache.clear
        return wrapper

    return decorate


def traced(label):
    def decorate(fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            CALLS.append(f"{label}:{fn.__name__}{args}")
            return fn(*args, **kwargs)

        return wrapper

    return decorate


def retry(times=3, exceptions=(ConnectionError,)):
    def decorate(fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            for attempt in range(1, times + 1):
                try:
                    return fn(*args, **kwargs)
                except exceptions:
                    if attempt == times:
                        raise
                    CALLS.append(f"retry {fn.__name__} #{attempt}")

        return wrapper

    return decorate


CATALOG = {"tea": 400, "mug": 950, "pot": 3000}
_flaky = {"count": 0}


@retry(times=3)
def fetch_base_price(sku):
    _flaky["count"] += 1
    if _flaky["count"] % 4 == 1:
        raise ConnectionError("catalog timeout")
    return CATALOG[sku]


def discount(qty):
    return 0 if qty < 5 else 10 if qty < 20 else 20


@lru(maxsize=8)
@traced("svc")
def quote(sku, qty=1):
    base = fetch_base_price(sku)
    pct = discount(qty)
    return base * qty * (100 - pct) // 100


def main():
    orders = [("tea", 1), ("mug", 2), ("tea", 10), ("pot", 1)]
    total = 0
    for sku, qty in orders:
        price = quote(sku, qty=qty)
        print(f"{sku:<4} x{qty:<3} {price / 100:8.2f}")
        total += price
    print(f"total {total / 100:.2f}; cache {quote.stats}; {len(CALLS)} calls logged")
    expected = CATALOG["tea"] * 10 * 90 // 100
    got = quote("tea", qty=10)
    if got != expected:
        raise PriceError(f"tea x10 priced {got}, " + f"expected {expected}")


main()
