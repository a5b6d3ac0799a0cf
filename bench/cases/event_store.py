"""Event sourcing for shopping carts: an append-only event store, aggregates rebuilt
by replaying events through generator pipelines, projections and snapshots.

Bug report: rebuilding a cart from a snapshot replays the event that the snapshot
already contains (off-by-one in `events_after`), so the cart shows one extra item;
the consistency report prints INCONSISTENT on stdout and exits 0.
"""

import itertools
import json
from collections import defaultdict
from dataclasses import asdict, dataclass, field


@dataclass(frozen=True)
class Event:
    stream: str
    version: int
    kind: str
    data: dict = field(default_factory=dict)


class ConcurrencyError(Exception):
    pass


class EventStore:
    def __init__(self):
        self.streams = defaultdict(list)
        self.snapshots = {}
        self.subscribers = []

    def append(self, stream, expected_version, kind, **data):
        events = self.streams[stream]
        if len(events) != expected_version:
            raise ConcurrencyError(f"{stream}: expected v{expected_version}, at v{len(events)}")
        event = Event(stream, expected_version + 1, kind, data)
        events.append(event)
        for callback in self.subscribers:
            callback(event)
        return event.version

    def events_after(self, stream, version):
        # versions start at 1; the event with version v sits at index v - 1
        yield from self.streams[stream][max(version - 1, 0):]

    def save_snapshot(self, stream, version, state):
        self.snapshots[stream] = (version, json.dumps(state, sort_keys=True))

    def load_snapshot(self, stream):
        if stream not in self.snapshots:
            return 0, None
        version, text = self.snapshots[stream]
        return version, json.loads(text)


class Cart:
    def __init__(self, stream):
        self.stream = stream
        self.version = 0
        self.items = {}
        self.checked_out = False

    def apply(self, event):
        handler = getattr(self, "on_" + event.kind)
        handler(**event.data)
        self.version = event.version

    def on_added(self, sku, qty, price):
        entry = self.items.setdefault(sku, {"qty": 0, "price": price})
        entry["qty"] += qty

    def on_removed(self, sku, qty):
        entry = self.items[sku]
        entry["qty"] -= qty
        if entry["qty"] <= 0:
            del self.items[sku]

    def on_checked_out(self):
        self.checked_out = True

    def total(self):
        return sum(e["qty"] * e["price"] for e in self.items.values())

    def state(self):
        return {"items": self.items, "checked_out": self.checked_out}

    @classmethod
    def from_state(cls, stream, version, state):
        cart = cls(stream)
        cart.version = version
        cart.items = state["items"]
        cart.checked_out = state["checked_out"]
        return cart


def rebuild(store, stream, use_snapshot=True):
    version, state = store.load_snapshot(stream) if use_snapshot else (0, None)
    cart = Cart.from_state(stream, version, state) if state else Cart(stream)
    for event in store.events_after(stream, cart.version):
        cart.apply(event)
    return cart


def only(kind):
    def stage(events):
        return (e for e in events if e.kind == kind)

    return stage


def pipeline(events, *stages):
    for stage in stages:
        events = stage(events)
    return events


def revenue_projection(store):
    all_events = itertools.chain.from_iterable(store.streams.values())
    per_sku = defaultdict(int)
    for event in pipeline(all_events, only("added")):
        per_sku[event.data["sku"]] += event.data["qty"] * event.data["price"]
    return dict(sorted(per_sku.items()))


def simulate(store):
    log = []
    store.subscribers.append(lambda e: log.append(f"{e.stream}@{e.version} {e.kind}"))
    v = store.append("cart-1", 0, "added", sku="tea", qty=2, price=4)
    v = store.append("cart-1", v, "added", sku="mug", qty=1, price=9)
    store.save_snapshot("cart-1", v, rebuild(store, "cart-1", use_snapshot=False).state())
    v = store.append("cart-1", v, "added", sku="tea", qty=1, price=4)
    v = store.append("cart-1", v, "removed", sku="mug", qty=1)
    w = store.append("cart-2", 0, "added", sku="pot", qty=1, price=30)
    store.append("cart-2", w, "checked_out")
    return log


def main():
    store = EventStore()
    log = simulate(store)
    print("\n".join(log))
    print("revenue:", revenue_projection(store))
    for stream in sorted(store.streams):
        fresh = rebuild(store, stream, use_snapshot=False)
        fast = rebuild(store, stream)
        same = fresh.state() == fast.state()
        verdict = "consistent" if same else "INCON" + f"SISTENT {stream}: replay {fresh.total()} vs snapshot {fast.total()}"
        print(f"{stream}: v{fresh.version} total={fresh.total()} {verdict}")
        print(json.dumps(asdict(store.streams[stream][-1]), sort_keys=True))


if __name__ == "__main__":
    main()
