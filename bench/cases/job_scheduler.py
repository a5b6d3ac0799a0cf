"""A deadline-aware job scheduler with dependencies, priorities and worker slots.

Bug report: with two workers, `deploy-staging` starts before `package` has
finished: jobs of cost 1 are marked done when they start (an optimisation meant for
no-op jobs of cost 0). The consistency audit at the end exits with an error message.
"""

import heapq
import sys
from collections import defaultdict, deque
from dataclasses import dataclass, field

REGISTRY = {}


def job_kind(name, default_cost=1):
    def register(cls):
        cls.kind = name
        cls.default_cost = default_cost
        REGISTRY[name] = cls
        return cls

    return register


@dataclass
class Job:
    name: str
    cost: int = 0
    priority: int = 0
    deps: tuple = ()
    deadline: int = 10**9

    def __post_init__(self):
        if self.cost == 0:
            self.cost = type(self).default_cost

    def describe(self):
        return f"{self.kind}:{self.name}"


@job_kind("build", default_cost=3)
class BuildJob(Job):
    pass


@job_kind("test", default_cost=2)
class TestJob(Job):
    pass


@job_kind("deploy", default_cost=1)
class DeployJob(Job):
    pass


@job_kind("lint")
class LintJob(Job):
    pass


@dataclass(order=True)
class Event:
    time: int
    seq: int
    kind: str = field(compare=False)
    job: str = field(compare=False)
    worker: int = field(compare=False, default=-1)


class CycleError(Exception):
    pass


def topo_order(jobs):
    indegree = {name: 0 for name in jobs}
    users = defaultdict(list)
    for job in jobs.values():
        for dep in job.deps:
            if dep not in jobs:
                raise KeyError(f"{job.name} depends on unknown job {dep}")
            indegree[job.name] += 1
            users[dep].append(job.name)
    ready = deque(sorted(n for n, d in indegree.items() if d == 0))
    order = []
    while ready:
        name = ready.popleft()
        order.append(name)
        for user in users[name]:
            indegree[user] -= 1
            if indegree[user] == 0:
                ready.append(user)
    if len(order) != len(jobs):
        stuck = sorted(set(jobs) - set(order))
        raise CycleError(f"cycle among {stuck}")
    return order


class Scheduler:
    def __init__(self, jobs, workers=2):
        self.jobs = {job.name: job for job in jobs}
        topo_order(self.jobs)
        self.workers = workers
        self.free = list(range(workers))
        self.events = []
        self.seq = 0
        self.done = set()
        self.started = {}
        self.finished = {}
        self.log = []
        self.pending = set(self.jobs)

    def push(self, time, kind, job, worker=-1):
        self.seq += 1
        heapq.heappush(self.events, Event(time, self.seq, kind, job, worker))

    def ready_jobs(self):
        ready = [
            self.jobs[n]
            for n in self.pending
            if all(d in self.done for d in self.jobs[n].deps)
        ]
        ready.sort(key=lambda j: (-j.priority, j.deadline, j.name))
        return ready

    def dispatch(self, now):
        for job in self.ready_jobs():
            if not self.free:
                break
            worker = self.free.pop(0)
            self.pending.discard(job.name)
            self.started[job.name] = now
            self.log.append(f"t={now:>2} w{worker} start {job.describe()}")
            self.push(now + job.cost, "finish", job.name, worker)
            if job.cost <= 1 and job.deps:
                self.done.add(job.name)
                return self.dispatch(now)

    def run(self):
        now = 0
        self.dispatch(now)
        while self.events:
            event = heapq.heappop(self.events)
            now = event.time
            if event.kind == "finish":
                self.free.append(event.worker)
                self.free.sort()
                self.finished[event.job] = now
                self.log.append(f"t={now:>2} w{event.worker} done  {event.job}")
                self.done.add(event.job)
                self.dispatch(now)
        return now


def lateness(sched):
    late = {}
    for name, end in sched.finished.items():
        job = sched.jobs[name]
        if end > job.deadline:
            late[name] = end - job.deadline
    return late


def audit(sched):
    problems = []
    for name, start in sched.started.items():
        for dep in sched.jobs[name].deps:
            end = sched.finished.get(dep)
            if end is None or end > start:
                problems.append(f"{name} started at t={start} before {dep} finished (t={end})")
    return problems


def make_pipeline():
    return [
        BuildJob("compile", priority=5),
        LintJob("lint", priority=1),
        TestJob("test-unit", deps=("compile",), priority=3),
        TestJob("test-integration", deps=("compile",), cost=4, priority=2),
        BuildJob("docs", cost=2),
        BuildJob("package", deps=("test-unit", "test-integration"), cost=1, deadline=9),
        DeployJob("deploy-staging", deps=("package",), deadline=11),
        DeployJob("deploy-prod", deps=("deploy-staging", "docs"), priority=9, deadline=14),
    ]


def gantt(sched, width=20):
    rows = []
    for name in sorted(sched.started, key=lambda n: (sched.started[n], n)):
        start, end = sched.started[name], sched.finished[name]
        bar = " " * start + "#" * (end - start)
        rows.append(f"{name:<17}|{bar:<{width}}|")
    return "\n".join(rows)


def main():
    sched = Scheduler(make_pipeline(), workers=2)
    makespan = sched.run()
    for line in sched.log:
        print(line)
    print(gantt(sched))
    print(f"makespan {makespan}, late: {lateness(sched) or 'none'}")
    problems = audit(sched)
    if problems:
        sys.exit("audit " + "failed: " + problems[0])


if __name__ == "__main__":
    main()
