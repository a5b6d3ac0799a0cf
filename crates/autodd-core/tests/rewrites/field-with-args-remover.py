from dataclasses import dataclass, field
import dataclasses
from typing import ClassVar
@dataclass
class Token:
    kind: str
    text: str
    pos: int = 0
    count: ClassVar[int] = 0
    seen: list = field(default_factory=list, init=False)
@dataclasses.dataclass(order=True)
class Job:
    name: str
    cost: int = 0
class BuildJob(Job):
    pass
@dataclass
class Timed(Job):
    at: int = 0
@dataclass
class Custom:
    a: int
    def __init__(self, a):
        self.a = a
@dataclass(kw_only=True)
class Opts:
    depth: int
    wide: bool = False
out = [Token('num', '1', 0), Token('op', '+', pos=2), Token('eof', '')]
jobs = [Job('a', 3), BuildJob('b', cost=4), Timed('c', 1, 5), Custom(1), Opts(depth=2, wide=True)]
with __freeze__:
    frozen = Job('f', 9)
class Sample(typing.NamedTuple):
    t: float
    energy: float
samples = [Sample(0.0, 1.5)]
@dataclass(kw_only=True)
class KwBase:
    flag: bool
@dataclass
class KwChild(KwBase):
    size: int
class Middle(Job):
    pass
@dataclass
class Below(Middle):
    extra: int
made = [KwChild(1, flag=True), Below('x', 2, 3)]
