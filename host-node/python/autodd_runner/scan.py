"""What a candidate's output says about its failure, read as it streams (the runner's
twin of host-node/src/backends/scan.js; both are held to the cases of
test/fixtures/output-scan.json)."""

import re


TAIL_BYTES = 4096


class Finder:
    """Whether `needle` occurs in a stream fed in chunks. The needle may straddle two
    reads, so the last len(needle) - 1 bytes are carried over."""

    def __init__(self, needle):
        self.needle = needle
        self.found = False
        self.carry = b""

    def feed(self, chunk):
        """Returns whether the needle was first found in this chunk."""
        if self.found:
            return False
        data = self.carry + chunk
        if self.needle in data:
            self.found = True
            self.carry = b""
            return True
        keep = len(self.needle) - 1
        self.carry = data[-keep:] if keep > 0 else b""
        return False

    def cut(self):
        """What follows is not contiguous with what came before: no match across the gap."""
        self.carry = b""


# The twin of host-node/src/backends/scan.js, held to the same cases
# (test/fixtures/output-scan.json): see there for what each pattern matches.
MAX_LINE = 65536

MSG_LINE_CHARS = 200

FRAME = re.compile(rb'( *\| )?  File "[^\n]*", line \d+')

WARNING = re.compile(rb".*:\d+: [A-Za-z_\x80-\xff][\w.\x80-\xff]*Warning: ")

HEADER = re.compile(rb"(  \+ Exception Group )?Traceback \(most recent call last\):")

# A name beyond ASCII (`Größenfehler`) is matched by its UTF-8 bytes.
EXCEPTION = re.compile(rb"([A-Za-z_\x80-\xff][\w.\x80-\xff]*)(?::|\s*$)")
# An exception group's own line with no "Traceback" header above it (raised out of an
# `except*` block): `  | ExceptionGroup:  (2 sub-exceptions)`.
GROUP = re.compile(rb"  \| ([A-Za-z_\x80-\xff][\w.\x80-\xff]*): .*\(\d+ sub-exceptions?\)$")

MARKERS = (b'File "', b"Traceback (most recent call last):", b"Warning: ", b" sub-exception")


class OutputScan:
    """What a stream says about the failure: whether `needle` occurs in what the
    program wrote itself (`own`), or anywhere, quoted source lines included
    (`anywhere`): a traceback quotes each frame's line, a SyntaxError the offending
    line, a warning the line that warned; the first own line holding it
    (`msg_line`); the exception type of the last traceback (`exception`); and the
    stream's tail for messages. Nothing else is kept, so endless output costs no
    memory."""

    def __init__(self, needle):
        self.needle = needle
        self.anywhere = Finder(needle)
        self.own = Finder(needle)
        self.msg_line = None
        self.exception = None
        self.tail = bytearray()
        self.partial = b""
        self.rest = None  # "own" or "quoted": what the rest of an overlong line is
        self.quote = None  # the margin of the frame whose quoted lines may follow
        self.warned = False  # the next line, if indented by two, quotes a warning's source
        self.expect = None  # the margin of the exception line the traceback ends with

    def feed(self, chunk):
        self.anywhere.feed(chunk)
        self.tail += chunk
        if len(self.tail) > TAIL_BYTES:
            del self.tail[:-TAIL_BYTES]
        data = chunk
        if self.rest is not None:
            end = data.find(b"\n")
            piece = data if end < 0 else data[: end + 1]
            if self.rest == "own":
                self.own_text(piece)
            if end < 0:
                return
            self.rest = None
            data = data[end + 1 :]
        if self.partial:
            data = self.partial + data
        end = data.rfind(b"\n")
        complete, partial = data[: end + 1], data[end + 1 :]
        if complete:
            if self.idle() and not any(m in complete for m in MARKERS):
                self.own_text(complete)
            else:
                for line in complete[:-1].split(b"\n"):
                    self.line(line + b"\n")
        if len(partial) > MAX_LINE:
            self.rest = self.line(partial)
            self.partial = b""
        else:
            self.partial = partial

    def end(self):
        """The stream ended: a last line without a newline counts too."""
        if self.partial and self.rest is None:
            self.line(self.partial)
        self.partial = b""
        self.rest = None

    def text(self):
        return bytes(self.tail).decode("utf-8", "replace")

    def idle(self):
        return self.quote is None and not self.warned and self.expect is None

    def line(self, line):
        """Judges one line (with its newline, if it has one): "own" or "quoted"."""
        judged = self.judge(line)
        # The needle must stand in the program's own output as one piece: never
        # across a quote.
        if judged == "quoted":
            self.own.cut()
        return judged

    def judge(self, line):
        text = line[:-2] if line.endswith(b"\r\n") else line.rstrip(b"\n")
        if self.warned:
            self.warned = False
            # A warning with no source to show (`sys:1: ...`) is followed by whatever comes.
            if text.startswith(b"  ") and not FRAME.match(text) and not HEADER.match(text):
                return "quoted"
        if self.quote is not None:
            if text.startswith(self.quote + b"    "):
                return "quoted"
            self.quote = None
        frame = FRAME.match(text)
        if frame:
            self.quote = frame.group(1) or b""
            # A SyntaxError of the program itself has a frame with nothing after the line
            # number and no "Traceback" line (a stack printed by traceback.print_stack()
            # has `, in NAME`, one of faulthandler ` in NAME`).
            syntax = not text[frame.end() :].strip()
            if self.expect is None and self.quote == b"" and syntax:
                self.expect = b""
        elif HEADER.match(text):
            self.expect = b"  | " if text.startswith(b" ") else b""
        elif WARNING.match(text):
            self.warned = True
        elif self.expect is None and GROUP.match(text):
            self.exception = GROUP.match(text).group(1).decode("utf-8", "replace")
        elif self.expect is not None and text.startswith(self.expect):
            found = EXCEPTION.match(text, len(self.expect))
            if found:
                self.exception = found.group(1).decode("utf-8", "replace")
                self.expect = None
        self.own_text(line)
        return "own"

    def own_text(self, data):
        if not self.own.feed(data):
            return
        # The line holding the needle (or, if it began in an earlier chunk, this
        # chunk's first).
        at = max(data.find(self.needle), 0)
        start = data.rfind(b"\n", 0, at) + 1
        stop = data.find(b"\n", at)
        line = data[start : len(data) if stop < 0 else stop].decode("utf-8", "replace").strip()
        self.msg_line = line[:MSG_LINE_CHARS] + "…" if len(line) > MSG_LINE_CHARS else line
