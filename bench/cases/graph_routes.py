"""Route planning on a weighted transit graph: Dijkstra with a heap, path
reconstruction, comprehension-built adjacency and a closure-based cost model.

Bug report: the transfer penalty is added when the line does *not* change, so the
planner prefers a route with two transfers; the itinerary check raises.
"""

import heapq
from itertools import pairwise

EDGES = [
    ("airport", "central", "red", 12),
    ("central", "museum", "red", 4),
    ("museum", "harbor", "red", 6),
    ("central", "market", "blue", 3),
    ("market", "harbor", "green", 5),
    ("market", "stadium", "blue", 7),
    ("stadium", "harbor", "blue", 2),
    ("airport", "market", "green", 18),
]

FROZEN_PENALTY = 5  # autodd: freeze


class RouteError(Exception):
    pass


def build_graph(edges):
    stops = {s for a, b, *_ in edges for s in (a, b)}
    graph = {s: [] for s in sorted(stops)}
    for a, b, line, minutes in edges:
        graph[a].append((b, line, minutes))
        graph[b].append((a, line, minutes))
    return graph


def cost_model(penalty):
    def cost(prev_line, line, minutes):
        if prev_line is not None and prev_line == line:
            return minutes + penalty
        return minutes

    return cost


def plan(graph, start, goal, cost):
    if start not in graph or goal not in graph:
        raise RouteError(f"unknown stop {start if start not in graph else goal}")
    best = {(start, None): 0}
    prev = {}
    heap = [(0, start, None)]
    while heap:
        d, stop, line = heapq.heappop(heap)
        if stop == goal:
            path = [(stop, line)]
            while path[-1] in prev:
                path.append(prev[path[-1]])
            return d, path[::-1]
        if d > best.get((stop, line), float("inf")):
            continue
        for nxt, nline, minutes in graph[stop]:
            nd = d + cost(line, nline, minutes)
            if nd < best.get((nxt, nline), float("inf")):
                best[(nxt, nline)] = nd
                prev[(nxt, nline)] = (stop, line)
                heapq.heappush(heap, (nd, nxt, nline))
    raise RouteError(f"no route from {start} to {goal}")


def itinerary(path):
    legs = []
    for (a, _), (b, line) in pairwise(path):
        if legs and legs[-1][0] == line:
            legs[-1][2] = b
        else:
            legs.append([line, a, b])
    return legs


def transfers(legs):
    return len(legs) - 1


def main():
    graph = build_graph(EDGES)
    degree = {s: len(n) for s, n in graph.items()}
    print("hubs:", [s for s, d in sorted(degree.items(), key=lambda kv: -kv[1]) if d >= 3])
    cost = cost_model(FROZEN_PENALTY)
    minutes, path = plan(graph, "airport", "harbor", cost)
    legs = itinerary(path)
    for line, a, b in legs:
        print(f"  {line:<6} {a} -> {b}")
    print(f"{minutes} min, {transfers(legs)} transfers")
    if transfers(legs) > 1:
        lines = "/".join(leg[0] for leg in legs)
        raise RouteError(f"expected at most 1 transfer, " + f"got {transfers(legs)} via {lines}")


main()
