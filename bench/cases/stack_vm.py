"""A tiny assembler and stack virtual machine, dispatching with `match`.

Bug report: calling a function with two arguments computes the wrong value:
`CALL` pops its arguments from the stack top, so they arrive reversed, and the
self-check raises.
"""

from dataclasses import dataclass, field
from enum import Enum, auto


class Op(Enum):
    PUSH = auto()
    POP = auto()
    ADD = auto()
    SUB = auto()
    MUL = auto()
    DIV = auto()
    LT = auto()
    EQ = auto()
    JMP = auto()
    JZ = auto()
    LOAD = auto()
    STORE = auto()
    CALL = auto()
    RET = auto()
    PRINT = auto()
    HALT = auto()
    DUP = auto()
    SWAP = auto()


@dataclass
class Instr:
    op: Op
    arg: object = None
    line: int = 0


@dataclass
class Frame:
    return_pc: int
    base: int
    nargs: int
    locals: dict = field(default_factory=dict)


class VMError(Exception):
    pass


def assemble(text):
    labels = {}
    pending = []
    for lineno, raw in enumerate(text.splitlines(), 1):
        line = raw.split(";", 1)[0].strip()
        if not line:
            continue
        if line.endswith(":"):
            labels[line[:-1]] = len(pending)
            continue
        parts = line.split()
        name = parts[0].upper()
        try:
            op = Op[name]
        except KeyError:
            raise VMError(f"line {lineno}: unknown opcode {name}") from None
        arg = parts[1] if len(parts) > 1 else None
        pending.append((op, arg, lineno))
    program = []
    for op, arg, lineno in pending:
        match op:
            case Op.PUSH:
                value = int(arg)
            case Op.JMP | Op.JZ:
                if arg not in labels:
                    raise VMError(f"line {lineno}: unknown label {arg}")
                value = labels[arg]
            case Op.CALL:
                target, nargs = arg.split("/")
                value = (labels[target], int(nargs))
            case Op.LOAD | Op.STORE:
                value = arg
            case _:
                value = None
        program.append(Instr(op, value, lineno))
    return program


class VM:
    def __init__(self, program, trace=False):
        self.program = program
        self.stack = []
        self.frames = [Frame(return_pc=-1, base=0, nargs=0)]
        self.pc = 0
        self.output = []
        self.steps = 0
        self.trace = trace

    def pop(self, instr):
        if len(self.stack) <= self.frames[-1].base:
            raise VMError("stack under" + f"flow at line {instr.line} ({instr.op.name}), depth {len(self.frames)}")
        return self.stack.pop()

    def binary(self, instr, fn):
        b = self.pop(instr)
        a = self.pop(instr)
        self.stack.append(fn(a, b))

    def step(self):
        instr = self.program[self.pc]
        self.pc += 1
        self.steps += 1
        if self.trace:
            print(f"{self.pc - 1:3d} {instr.op.name:<6} {self.stack}")
        match instr.op:
            case Op.PUSH:
                self.stack.append(instr.arg)
            case Op.POP:
                self.pop(instr)
            case Op.DUP:
                value = self.pop(instr)
                self.stack.extend([value, value])
            case Op.SWAP:
                b, a = self.pop(instr), self.pop(instr)
                self.stack.extend([b, a])
            case Op.ADD:
                self.binary(instr, lambda a, b: a + b)
            case Op.SUB:
                self.binary(instr, lambda a, b: a - b)
            case Op.MUL:
                self.binary(instr, lambda a, b: a * b)
            case Op.DIV:
                self.binary(instr, lambda a, b: a // b)
            case Op.LT:
                self.binary(instr, lambda a, b: int(a < b))
            case Op.EQ:
                self.binary(instr, lambda a, b: int(a == b))
            case Op.JMP:
                self.pc = instr.arg
            case Op.JZ:
                if self.pop(instr) == 0:
                    self.pc = instr.arg
            case Op.LOAD:
                frame = self.frames[-1]
                if instr.arg not in frame.locals:
                    raise VMError(f"line {instr.line}: unbound {instr.arg}")
                self.stack.append(frame.locals[instr.arg])
            case Op.STORE:
                self.frames[-1].locals[instr.arg] = self.pop(instr)
            case Op.CALL:
                target, nargs = instr.arg
                args = [self.pop(instr) for _ in range(nargs)]
                frame = Frame(return_pc=self.pc, base=len(self.stack), nargs=nargs)
                for i, value in enumerate(args):
                    frame.locals[f"a{i}"] = value
                self.frames.append(frame)
                self.pc = target
            case Op.RET:
                frame = self.frames.pop()
                result = self.pop(instr) if len(self.stack) > frame.base else None
                del self.stack[frame.base:]
                if result is not None:
                    self.stack.append(result)
                self.pc = frame.return_pc
            case Op.PRINT:
                self.output.append(str(self.pop(instr)))
            case Op.HALT:
                return False
            case other:
                raise VMError(f"unhandled {other}")
        return True

    def run(self, limit=100000):
        while self.step():
            if self.steps > limit:
                raise VMError("step limit exceeded")
        return self.output


FACTORIAL = """
    push 6
    call fact/1
    print
    halt
fact:
    load a0
    push 2
    lt
    jz recurse
    push 1
    ret
recurse:
    load a0
    load a0
    push 1
    sub
    call fact/1
    mul
    ret
"""

COUNTDOWN = """
    push 5
    store n
loop:
    load n
    jz done
    load n
    print
    load n
    push 1
    sub
    store n
    jmp loop
done:
    halt
"""

POWER = """
    push 3
    push 4
    call pow/2
    print
    halt
pow:
    push 1
    store acc
again:
    load a1
    jz finish
    load acc
    load a0
    mul
    store acc
    load a1
    push 1
    sub
    store a1
    jmp again
finish:
    load acc
    ret
"""


def check(name, source, want):
    vm = VM(assemble(source))
    got = vm.run()
    if got != want:
        raise VMError(f"{name}: expected {want}, got {got}")
    print(f"{name:<10} steps={vm.steps:<5} ok")


def main():
    check("factorial", FACTORIAL, ["720"])
    check("countdown", COUNTDOWN, ["5", "4", "3", "2", "1"])
    check("power", POWER, ["81"])


main()
