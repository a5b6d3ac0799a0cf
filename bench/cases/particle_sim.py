"""A 2D particle simulation: a small molecule of point masses held together by
springs, with softened pairwise gravity, integrated with velocity Verlet.

Everything is typed: frozen dataclasses for vectors and springs, dataclasses for
particles and the world, a Protocol for force laws, NamedTuples for samples, and
annotations on every function and local of interest. After the run the program
checks the conservation laws of a closed system: total momentum, uniform motion
of the centre of mass, and total energy within a relative tolerance.

Bug report: since the integrator was "simplified", total energy creeps away from
its initial value; momentum and the centre of mass are still fine. The energy
audit raises SimulationError naming the first sampled step over tolerance.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Final, Iterable, Iterator, NamedTuple, Protocol, Sequence, TypeAlias

DT: Final[float] = 0.002
STEPS: Final[int] = 400
SAMPLE_EVERY: Final[int] = 10
ENERGY_TOLERANCE: Final[float] = 1e-3
SOFTENING: Final[float] = 0.05


@dataclass(frozen=True, slots=True)
class Vec2:
    x: float = 0.0
    y: float = 0.0

    @staticmethod
    def zero() -> Vec2:
        return Vec2(0.0, 0.0)

    def __add__(self, other: Vec2) -> Vec2:
        return Vec2(self.x + other.x, self.y + other.y)

    def __sub__(self, other: Vec2) -> Vec2:
        return Vec2(self.x - other.x, self.y - other.y)

    def __mul__(self, k: float) -> Vec2:
        return Vec2(self.x * k, self.y * k)

    __rmul__ = __mul__

    def __truediv__(self, k: float) -> Vec2:
        return Vec2(self.x / k, self.y / k)

    def dot(self, other: Vec2) -> float:
        return self.x * other.x + self.y * other.y

    def norm(self) -> float:
        return math.hypot(self.x, self.y)


@dataclass
class Particle:
    name: str
    mass: float
    pos: Vec2
    vel: Vec2
    acc: Vec2 = field(default_factory=Vec2.zero)

    @property
    def momentum(self) -> Vec2:
        return self.vel * self.mass

    def kinetic_energy(self) -> float:
        return 0.5 * self.mass * self.vel.dot(self.vel)


@dataclass(frozen=True)
class Spring:
    a: int
    b: int
    stiffness: float
    rest_length: float


Forces: TypeAlias = list[Vec2]


class ForceLaw(Protocol):
    def forces(self, particles: Sequence[Particle]) -> Forces: ...

    def potential(self, particles: Sequence[Particle]) -> float: ...


@dataclass
class SpringNetwork:
    springs: list[Spring]

    def forces(self, particles: Sequence[Particle]) -> Forces:
        out: Forces = [Vec2.zero() for _ in particles]
        for s in self.springs:
            delta: Vec2 = particles[s.b].pos - particles[s.a].pos
            length: float = delta.norm()
            pull: Vec2 = delta * (s.stiffness * (length - s.rest_length) / length)
            out[s.a] = out[s.a] + pull
            out[s.b] = out[s.b] - pull
        return out

    def potential(self, particles: Sequence[Particle]) -> float:
        total: float = 0.0
        for s in self.springs:
            stretch: float = (particles[s.b].pos - particles[s.a].pos).norm() - s.rest_length
            total += 0.5 * s.stiffness * stretch * stretch
        return total


@dataclass
class SoftGravity:
    g: float
    eps: float = SOFTENING

    def pairs(self, n: int) -> Iterator[tuple[int, int]]:
        for i in range(n):
            for j in range(i + 1, n):
                yield i, j

    def forces(self, particles: Sequence[Particle]) -> Forces:
        out: Forces = [Vec2.zero() for _ in particles]
        for i, j in self.pairs(len(particles)):
            delta: Vec2 = particles[j].pos - particles[i].pos
            r2: float = delta.dot(delta) + self.eps * self.eps
            f: Vec2 = delta * (self.g * particles[i].mass * particles[j].mass / (r2 * math.sqrt(r2)))
            out[i] = out[i] + f
            out[j] = out[j] - f
        return out

    def potential(self, particles: Sequence[Particle]) -> float:
        total: float = 0.0
        for i, j in self.pairs(len(particles)):
            delta: Vec2 = particles[j].pos - particles[i].pos
            total -= self.g * particles[i].mass * particles[j].mass / math.sqrt(delta.dot(delta) + self.eps ** 2)
        return total


class Sample(NamedTuple):
    step: int
    kinetic: float
    potential: float
    momentum: Vec2
    centre: Vec2

    @property
    def total(self) -> float:
        return self.kinetic + self.potential


class SimulationError(Exception):
    pass


@dataclass
class World:
    particles: list[Particle]
    laws: list[ForceLaw]
    time: float = 0.0
    steps_done: int = 0

    def total_mass(self) -> float:
        return sum(p.mass for p in self.particles)

    def update_accelerations(self) -> None:
        net: Forces = [Vec2.zero() for _ in self.particles]
        for law in self.laws:
            for i, f in enumerate(law.forces(self.particles)):
                net[i] = net[i] + f
        for p, f in zip(self.particles, net):
            p.acc = f / p.mass

    def step(self, dt: float) -> None:
        half: float = 0.5 * dt
        for p in self.particles:
            p.vel = p.vel + p.acc * half
            p.pos = p.pos + p.vel * dt + p.acc * (half * dt)
        self.update_accelerations()
        for p in self.particles:
            p.vel = p.vel + p.acc * half
        self.time += dt
        self.steps_done += 1

    def sample(self) -> Sample:
        m: float = self.total_mass()
        momentum: Vec2 = sum((p.momentum for p in self.particles), Vec2.zero())
        centre: Vec2 = sum((p.pos * p.mass for p in self.particles), Vec2.zero()) / m
        kinetic: float = sum(p.kinetic_energy() for p in self.particles)
        potential: float = sum(law.potential(self.particles) for law in self.laws)
        return Sample(self.steps_done, kinetic, potential, momentum, centre)


def build_molecule() -> World:
    particles: list[Particle] = [
        Particle("C", 12.0, Vec2(0.0, 0.0), Vec2(0.0, 0.0)),
        Particle("O", 16.0, Vec2(1.2, 0.0), Vec2(0.0, 0.0)),
        Particle("H1", 1.0, Vec2(-0.6, 0.9), Vec2(0.8, -0.3)),
        Particle("H2", 1.0, Vec2(-0.6, -0.9), Vec2(-0.5, 0.6)),
        Particle("N", 14.0, Vec2(0.4, 1.6), Vec2(0.1, 0.0)),
    ]
    springs: list[Spring] = [
        Spring(0, 1, 80.0, 1.2), Spring(0, 2, 40.0, 1.0), Spring(0, 3, 40.0, 1.0),
        Spring(0, 4, 60.0, 1.5), Spring(1, 4, 20.0, 1.9), Spring(2, 3, 5.0, 1.7),
    ]
    world: World = World(particles, [SpringNetwork(springs), SoftGravity(g=0.02)])
    world.update_accelerations()
    return world


def run(world: World, steps: int, dt: float, every: int) -> list[Sample]:
    samples: list[Sample] = [world.sample()]
    for n in range(1, steps + 1):
        world.step(dt)
        if n % every == 0:
            samples.append(world.sample())
    return samples


def check_momentum(samples: Iterable[Sample], tol: float = 1e-9) -> None:
    first: Sample | None = None
    for s in samples:
        first = first or s
        if (s.momentum - first.momentum).norm() > tol:
            raise SimulationError(f"momentum changed at step {s.step}")


def check_centre(samples: Sequence[Sample], total_mass: float, dt: float, tol: float = 1e-6) -> None:
    drift_velocity: Vec2 = samples[0].momentum / total_mass
    for s in samples:
        predicted: Vec2 = samples[0].centre + drift_velocity * (s.step * dt)
        if (s.centre - predicted).norm() > tol:
            raise SimulationError(f"centre of mass off course at step {s.step}")


def check_energy(samples: Sequence[Sample], tol: float) -> None:
    e0: float = samples[0].total
    for s in samples:
        drift: float = abs(s.total - e0) / abs(e0)
        if drift > tol:
            raise SimulationError(f"energy drift {drift:.1e} at step {s.step} exceeds {tol:.0e}")


def report(samples: Sequence[Sample]) -> None:
    totals: list[float] = [s.total for s in samples]
    print(f"{len(samples)} samples, E0 = {totals[0]:.6f}, range [{min(totals):.6f}, {max(totals):.6f}]")
    for s in samples[:: len(samples) // 5]:
        print(f"  step {s.step:>4}  K={s.kinetic:9.5f}  U={s.potential:10.5f}  E={s.total:10.6f}")


def main() -> None:
    world: World = build_molecule()
    samples: list[Sample] = run(world, STEPS, DT, SAMPLE_EVERY)
    report(samples)
    check_momentum(samples)
    check_centre(samples, world.total_mass(), DT)
    check_energy(samples, ENERGY_TOLERANCE)
    print(f"conservation checks passed after t = {world.time:.3f}")


if __name__ == "__main__":
    main()
