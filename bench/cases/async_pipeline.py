"""An asyncio ETL pipeline: a producer, a pool of transform workers, a batching
sink with retries, all connected by bounded queues.

Bug report: when a transform fails and is retried, the retried record keeps its
old sequence number but the sink's reorder window has already advanced past it,
and the sink drops it; the final integrity check raises with the missing sequence
numbers.
"""

import asyncio
import json
import random
from dataclasses import dataclass, field


@dataclass
class Record:
    seq: int
    payload: dict
    attempts: int = 0
    tags: list = field(default_factory=list)


class TransientError(Exception):
    pass


class IntegrityError(Exception):
    pass


class Stats:
    def __init__(self):
        self.counts = {}

    def bump(self, key, n=1):
        self.counts[key] = self.counts.get(key, 0) + n

    def __str__(self):
        return " ".join(f"{k}={v}" for k, v in sorted(self.counts.items()))


def make_payloads(n, seed=7):
    rng = random.Random(seed)
    kinds = ["click", "view", "purchase", "refund"]
    for i in range(n):
        yield {
            "user": f"u{rng.randrange(20):02d}",
            "kind": rng.choice(kinds),
            "amount": round(rng.uniform(1, 100), 2),
            "flaky": i % 7 == 3,
        }


async def producer(queue, n, stats):
    for seq, payload in enumerate(make_payloads(n)):
        await queue.put(Record(seq, payload))
        stats.bump("produced")
    return n


def normalize(payload):
    out = dict(payload)
    out["kind"] = out["kind"].upper()
    if out["kind"] == "REFUND":
        out["amount"] = -out["amount"]
    out["cents"] = int(round(out["amount"] * 100))
    return out


async def transform(record):
    await asyncio.sleep(0)
    if record.payload.get("flaky") and record.attempts == 0:
        raise TransientError(f"record {record.seq} failed transiently")
    return Record(record.seq, normalize(record.payload), record.attempts, record.tags + ["normalized"])


async def worker(wid, inbox, outbox, retry_queue, stats):
    while True:
        record = await inbox.get()
        try:
            if record is None:
                return
            try:
                result = await transform(record)
            except TransientError:
                stats.bump("retries")
                record.attempts += 1
                await retry_queue.put(record)
                continue
            result.tags.append(f"w{wid}")
            await outbox.put(result)
            stats.bump("transformed")
        finally:
            inbox.task_done()


async def retrier(retry_queue, inbox):
    while True:
        record = await retry_queue.get()
        if record is None:
            return
        for _ in range(record.attempts * 3):
            await asyncio.sleep(0)
        await inbox.put(record)


class ReorderingSink:
    """Emits records in sequence order, in batches, with a bounded reorder window."""

    def __init__(self, batch_size=5, window=4):
        self.batch_size = batch_size
        self.window = window
        self.buffer = {}
        self.next_seq = 0
        self.batches = []
        self.current = []
        self.skipped = []
        self.late = []

    def add(self, record):
        if record.seq < self.next_seq:
            # A record the window gave up on: counted, but never emitted.
            self.late.append(record.seq)
            return
        self.buffer[record.seq] = record
        while self.next_seq in self.buffer or len(self.buffer) > self.window:
            if self.next_seq not in self.buffer:
                # Window full: give up waiting for next_seq.
                self.skipped.append(self.next_seq)
                self.next_seq += 1
                continue
            self.current.append(self.buffer.pop(self.next_seq))
            self.next_seq += 1
            if len(self.current) == self.batch_size:
                self.flush()

    def flush(self):
        if self.current:
            self.batches.append(self.current)
            self.current = []

    def close(self):
        for seq in sorted(self.buffer):
            self.current.append(self.buffer.pop(seq))
        self.flush()


async def sink(outbox, target, stats):
    while True:
        record = await outbox.get()
        if record is None:
            target.close()
            return
        target.add(record)
        stats.bump("sunk")


def check_integrity(target, n):
    seen = [r.seq for batch in target.batches for r in batch]
    missing = sorted(set(range(n)) - set(seen))
    out_of_order = [b for a, b in zip(seen, seen[1:]) if b < a]
    if missing or out_of_order:
        raise IntegrityError(
            "integrity check failed: " + f"{len(missing)} missing {missing[:5]}, {len(out_of_order)} out of order"
        )


def summarize(target):
    totals = {}
    for batch in target.batches:
        for record in batch:
            key = record.payload["kind"]
            totals[key] = totals.get(key, 0) + record.payload["cents"]
    return json.dumps(totals, sort_keys=True)


async def run_pipeline(n=40, workers=3):
    stats = Stats()
    inbox = asyncio.Queue(maxsize=8)
    outbox = asyncio.Queue()
    retry_queue = asyncio.Queue()
    target = ReorderingSink()
    prod = asyncio.create_task(producer(inbox, n, stats))
    pool = [asyncio.create_task(worker(i, inbox, outbox, retry_queue, stats)) for i in range(workers)]
    retry_task = asyncio.create_task(retrier(retry_queue, inbox))
    sink_task = asyncio.create_task(sink(outbox, target, stats))
    await prod
    while stats.counts.get("transformed", 0) < n:
        await asyncio.sleep(0)
    await retry_queue.put(None)
    for _ in pool:
        await inbox.put(None)
    await asyncio.gather(*pool, retry_task)
    await outbox.put(None)
    await sink_task
    print(f"stats: {stats}")
    print(f"batches: {len(target.batches)}, skipped: {target.skipped}")
    print(f"totals: {summarize(target)}")
    check_integrity(target, n)


if __name__ == "__main__":
    asyncio.run(run_pipeline())
