// The result fails the same way as the original: programs whose MSG is written in an
// `assert` or `raise` line, where a candidate that breaks earlier on that line (a
// NameError, a TypeError) still prints MSG in the source line its traceback quotes.
// Each is reduced with both backends at -j 1 and -j 2, and the result, run with plain
// python3, must show MSG in its own output and raise the original's exception type.
// Then the fallback for an MSG that only a quoted line holds, --same-error, flaky
// programs and --retries.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import net from 'node:net';
import { after, before, describe, test } from 'node:test';
import { OutputScan } from '../src/backends/scan.js';
import { BACKENDS, HAVE_ENGINE, fixture, runCli, runPython } from './helpers.js';

const skip = HAVE_ENGINE ? false : 'the wasm engine is not built (scripts/build-wasm.sh nodejs)';

/** @type {{ name: string, msg: string, exception: string, source: string }[]} */
const PROGRAMS = [
  {
    name: 'an f-string assert',
    msg: 'K shape check failed',
    exception: 'AssertionError',
    source: `class Tensor:
    def __init__(self, shape):
        self.shape = shape

def check(a, b):
    k_a = a.shape[1]
    k_b = b.shape[0]
    assert k_a == k_b, f"K shape check failed: {k_a} != {k_b}"
    return a.shape[0], b.shape[1]

def gemm(a, b):
    m, n = check(a, b)
    return Tensor((m, n))

print(gemm(Tensor((4, 8)), Tensor((8, 2))).shape)
print(gemm(Tensor((4, 8)), Tensor((16, 4))).shape)
`,
  },
  {
    name: 'an exception built in a helper',
    msg: 'shape mismatch',
    exception: 'ShapeError',
    source: `class ShapeError(Exception):
    pass

def shape_error(name, got, want):
    return ShapeError(f"{name} shape mismatch: got {got}, want {want}")

def load(rows):
    width = len(rows[0])
    for i, row in enumerate(rows):
        if len(row) != width:
            raise shape_error(f"row {i}", len(row), width)
    return rows

print(load([[1, 2], [3, 4]]))
print(load([[1, 2], [3]]))
`,
  },
  {
    name: 'a message split over lines',
    msg: 'must be a multiple of 16',
    exception: 'ValueError',
    source: `DEFAULTS = {"tile": 32, "stages": 2}

def validate(cfg):
    tile = cfg["tile"]
    if tile % 16:
        raise ValueError(
            "tile size must be a multiple of 16, "
            f"got {tile}"
        )
    return cfg

def configure(**overrides):
    cfg = dict(DEFAULTS)
    cfg.update(overrides)
    return validate(cfg)

print(configure())
print(configure(tile=24))
`,
  },
  {
    name: "messages in a DSL's string table",
    msg: 'T.gemm K shape check failed',
    exception: 'RuntimeError',
    source: `MESSAGES = {"k_mismatch": "T.gemm K shape check failed: {a} vs {b}", "oob": "index out of bounds"}

class DslError(RuntimeError):
    pass

def fail(code, **kw):
    raise RuntimeError(MESSAGES[code].format(**kw))

def gemm(a, b):
    if a[1] != b[0]:
        fail("k_mismatch", a=a[1], b=b[0])
    return (a[0], b[1])

print(gemm((4, 8), (8, 2)))
print(gemm((4, 8), (16, 4)))
`,
  },
  {
    name: 'a raise in a property',
    msg: 'missing tile size in config',
    exception: 'KeyError',
    source: `class Config:
    def __init__(self, data):
        self.data = data

    @property
    def tile(self):
        value = self.data.get("tile")
        if value is None:
            raise KeyError("missing tile size in config")
        return value

    def __repr__(self):
        return f"Config({self.data!r})"

good = Config({"tile": 64})
print(good, good.tile)
bad = Config({"block": 4})
print(bad, bad.tile * 2)
`,
  },
  {
    name: 'a SyntaxError raised for a kernel source',
    msg: 'unbalanced kernel brackets',
    exception: 'SyntaxError',
    source: `def parse_kernel(text):
    depth = 0
    for ch in text:
        depth += {"[": 1, "]": -1}.get(ch, 0)
    if depth:
        raise SyntaxError(f"unbalanced kernel brackets: depth {depth}")
    return text.split()

print(parse_kernel("A[i] = B[i]"))
print(parse_kernel("A[i = B[i]"))
`,
  },
];

/**
 * Runs `python3 file` and scans its output as the backends do.
 * @param {string} file
 * @param {string} msg
 */
function runScanned(file, msg) {
  const r = spawnSync('python3', [file], { encoding: 'buffer', timeout: 30_000 });
  const scan = new OutputScan(Buffer.from(msg));
  const err = new OutputScan(Buffer.from(msg));
  scan.feed(r.stdout);
  scan.end();
  err.feed(r.stderr);
  err.end();
  return {
    own: scan.found || err.found,
    exception: err.exception ?? scan.exception,
    stderr: r.stderr.toString(),
  };
}

describe('the result fails the same way', { skip }, () => {
  for (const program of PROGRAMS) {
    test(program.name, async () => {
      const dir = fixture({ 'bug.py': program.source });
      const original = runScanned(path.join(dir, 'bug.py'), program.msg);
      assert.equal(original.own, true, original.stderr);
      assert.equal(original.exception, program.exception);
      for (const backend of BACKENDS) {
        for (const jobs of ['1', '2']) {
          const out = path.join(dir, `min-${backend}-${jobs}.py`);
          const report = path.join(dir, `report-${backend}-${jobs}.json`);
          const r = await runCli(
            [
              'bug.py',
              '--err-msg',
              program.msg,
              '-o',
              out,
              '--backend',
              backend,
              '-j',
              jobs,
              '--report',
              report,
            ],
            { cwd: dir },
          );
          const where = `${backend} -j ${jobs}:\n${r.stderr}\n${fs.readFileSync(out, 'utf8')}`;
          assert.equal(r.code, 0, where);
          const result = runScanned(out, program.msg);
          assert.equal(result.own, true, `MSG only quoted: ${where}\n${result.stderr}`);
          assert.equal(result.exception, program.exception, `${where}\n${result.stderr}`);
          assert.match(r.stderr, new RegExp(`original: ${program.exception}, MSG in `));
          assert.match(r.stderr, /reproduces when run on its own \(2 of 2 runs\)/);
          const json = JSON.parse(fs.readFileSync(report, 'utf8'));
          assert.equal(json.failure.original.kind, program.exception);
          assert.equal(json.failure.result.kind, program.exception);
          assert.equal(json.failure.result.ownOutput, true);
          assert.equal(json.matchQuotedSource, false);
        }
      }
    });
  }
});

describe('an MSG that only a quoted source line holds', { skip }, () => {
  // The program never writes MSG: it is in the line of the SyntaxError that ast.parse
  // quotes. Only plain matching can reproduce that, so the run falls back to it.
  const source = `import ast

RULES = """
check(x > 0, "threshold check failed")
check(y > 0, "threshold check failed" +)
"""

def load(text):
    return ast.parse(text, "<rules>")

print(len(RULES))
load(RULES)
`;

  test('falls back to plain matching with a warning, and says so in the report', async () => {
    const dir = fixture({ 'rules.py': source });
    const r = await runCli(
      ['rules.py', '--err-msg', 'threshold check failed', '-o', 'min.py', '--report', 'r.json'],
      { cwd: dir },
    );
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /warning: "threshold check failed" is only in source lines that Python quotes/);
    assert.match(r.stderr, /original: SyntaxError, MSG only in a source line that Python quotes/);
    const json = JSON.parse(fs.readFileSync(path.join(dir, 'r.json'), 'utf8'));
    assert.equal(json.matchQuotedSource, true);
    assert.equal(json.failure.original.ownOutput, false);
    assert.equal(json.reproduced, true);
    const result = spawnSync('python3', ['min.py'], { cwd: dir, encoding: 'utf8' });
    assert.match(result.stderr, /threshold check failed/);
  });

  test('--match-quoted-source asks for plain matching: no warning', async () => {
    const dir = fixture({ 'rules.py': source });
    const r = await runCli(
      ['rules.py', '--err-msg', 'threshold check failed', '-o', 'min.py', '--match-quoted-source'],
      { cwd: dir },
    );
    assert.equal(r.code, 0, r.stderr);
    assert.doesNotMatch(r.stderr, /is only in source lines/);
    assert.match(r.stderr, /original: SyntaxError, MSG only in a source line that Python quotes/);
  });
});

describe('the original as its author wrote it', { skip }, () => {
  // Candidates are rewrites of the program as the engine prints it: no comments, no
  // blank lines. The original's check runs the user's own text, and a program whose
  // failure hangs on that text is refused rather than reduced to another failure.
  const PRAGMA = `import inspect

def kernel(fn):
    # the kernel's source must carry its pragma comment
    if "# pragma: tile" not in inspect.getsource(fn):
        raise TypeError("K shape check failed: no tile pragma")
    return fn

def launch(fn, a, b):
    if a != b:
        raise ValueError("K shape check failed: %d != %d" % (a, b))

@kernel
def gemm(a, b):
    # pragma: tile
    return a @ b

launch(gemm, 32, 128)
`;
  const LINENO = `import logging
logging.basicConfig(format="%(filename)s:%(lineno)d %(message)s")


def check(a, b):
    # the K dimension must agree

    if a != b:
        logging.error("shape mismatch")
        raise SystemExit(1)


check(32, 128)
`;
  /** @type {[string, string, string, string, string[], RegExp][]} */
  const CASES = [
    [
      'a comment read by inspect',
      'pragma.py',
      PRAGMA,
      'K shape check failed',
      ['--same-error'],
      /fails with TypeError, the original with ValueError/,
    ],
    [
      'a line number in MSG',
      'lineno.py',
      LINENO,
      'lineno.py:9 shape mismatch',
      [],
      /"lineno.py:9 shape mismatch" is not in its own output/,
    ],
  ];
  for (const [name, file, source, msg, extra, why] of CASES) {
    test(`a failure that hangs on the text (${name}) is refused with one line, exit 1`, async () => {
      const dir = fixture({ [file]: source, 'min.py': 'kept = True\n' });
      const r = await runCli([file, '--err-msg', msg, '-o', 'min.py', ...extra], { cwd: dir });
      assert.equal(r.code, 1, r.stderr);
      const [first] = r.stderr.split('\n').filter((line) => line.startsWith('autodd: error:'));
      assert.match(
        first,
        /the original reproduces, but not as autodd prints the copy it reduces \(no comments/,
      );
      assert.match(first, why);
      assert.equal(fs.readFileSync(path.join(dir, 'min.py'), 'utf8'), 'kept = True\n');
    });
  }
});

describe('literals as written', { skip }, () => {
  // A DSL that reads its kernels' source and quotes a literal as written: printed as
  // `496`, the copy autodd reduces would fail with another message.
  const JIT = `import ast
import inspect


def jit(fn):
    src = inspect.getsource(fn)
    for node in ast.walk(ast.parse(src)):
        if isinstance(node, ast.Constant) and isinstance(node.value, int) and node.value > 0xFF:
            raise ValueError(f"constant {ast.get_source_segment(src, node)} does not fit in 8 bits")
    return fn


def scale(values, factor):
    return [v * factor for v in values]


@jit
def small(x):
    return x + 0x10


@jit
def kernel(x):
    pattern = r"\\d+"
    y = scale([x, x + 1], 2)
    z = y[0] & 0x1F0
    return z + 0b11


print(kernel(3))
`;
  const MSG = 'constant 0x1F0 does not fit in 8 bits';

  for (const backend of BACKENDS) {
    test(`a failure that quotes a literal is reduced, the literal kept as written (${backend})`, async () => {
      const dir = fixture({ 'jit.py': JIT });
      const r = await runCli(['jit.py', '--err-msg', MSG, '-o', 'min.py', '--backend', backend], {
        cwd: dir,
      });
      assert.equal(r.code, 0, r.stderr);
      const result = fs.readFileSync(path.join(dir, 'min.py'), 'utf8');
      assert.match(result, /\b0x1F0\b/);
      // What the failure does not need is gone.
      assert.doesNotMatch(result, /scale|small|print/);
      const run = runPython('min.py', dir);
      assert.match(run.output, /ValueError: constant 0x1F0 does not fit in 8 bits/);
    });
  }

  // A script in triple quotes, as a DSL's or a database's program often is: the result
  // keeps the lines that fail as lines, not as one line of `\n` escapes.
  const SQL = `import sqlite3

SCHEMA = """
CREATE TABLE shapes (name TEXT, rows INTEGER);
CREATE TABLE sizes (rows INTEGER);
INSERT INTO shapes VALUES ('tile', 64);
INSERT INTO sizes VALUES (64, 32);
"""


def count(db):
    return db.execute("SELECT COUNT(*) FROM shapes").fetchone()[0]


db = sqlite3.connect(":memory:")
db.executescript(SCHEMA)
print(count(db))
`;

  for (const backend of BACKENDS) {
    test(`a string over several lines keeps its lines while it is cut (${backend})`, async () => {
      const dir = fixture({ 'schema.py': SQL });
      const msg = 'table sizes has 1 columns but 2 values were supplied';
      const r = await runCli(['schema.py', '--err-msg', msg, '-o', 'min.py', '--backend', backend], {
        cwd: dir,
      });
      assert.equal(r.code, 0, r.stderr);
      const result = fs.readFileSync(path.join(dir, 'min.py'), 'utf8');
      assert.match(result, /^INSERT INTO sizes VALUES \(64, 32\)/m, result);
      assert.match(result, /"""/);
      assert.doesNotMatch(result, /shapes|count/);
      assert.match(runPython('min.py', dir).output, /sqlite3\.OperationalError: table sizes has 1 columns/);
    });
  }
});

describe('the runner against a fresh python3', { skip }, () => {
  // The worker's frames lie under a candidate's: a program that counts them fails one
  // way in the runner and another in a fresh python3.
  const dir = fixture({
    'nested.py': 'import inspect\nx = 1\nif len(inspect.stack()) > 1:\n    raise ValueError("nested run")\n',
    'status.py':
      'import inspect, sys\nprint("stack check failed")\nx = 1\nsys.exit(3 if len(inspect.stack()) > 1 else 4)\n',
  });

  test('an original that reproduces only in the runner stops with exit 1 and names --backend subproc', async () => {
    const r = await runCli(['nested.py', '--err-msg', 'nested run', '-o', 'min.py'], { cwd: dir });
    assert.equal(r.code, 1, r.stderr);
    assert.match(
      r.stderr,
      /autodd: error: the original reproduces in the runner's forked workers, but not in a fresh python3: "nested run" is not in its own output there .*--backend subproc/,
    );
    assert.equal(fs.existsSync(path.join(dir, 'min.py')), false);
  });

  test('another kind of failure there: exit 1 with --same-error, a warning without', async () => {
    const strict = await runCli(
      ['status.py', '--err-msg', 'stack check failed', '-o', 'strict.py', '--same-error'],
      { cwd: dir },
    );
    assert.equal(strict.code, 1, strict.stderr);
    assert.match(
      strict.stderr,
      /it fails with exit status 4 there, with exit status 3 in the runner; give --backend subproc/,
    );
    const loose = await runCli(['status.py', '--err-msg', 'stack check failed', '-o', 'loose.py'], {
      cwd: dir,
    });
    assert.match(
      loose.stderr,
      /warning: the original fails with exit status 4 in a fresh python3 but with exit status 3 in the runner/,
    );
    const subproc = await runCli(
      [
        'status.py',
        '--err-msg',
        'stack check failed',
        '-o',
        'sub.py',
        '--same-error',
        '--backend',
        'subproc',
      ],
      { cwd: dir },
    );
    assert.equal(subproc.code, 0, subproc.stderr);
    assert.match(subproc.stderr, /original: exit status 4/);
  });
});

describe('a logged traceback does not hide how the run ended', { skip }, () => {
  // Each logs an exception (a traceback in the output) and then ends otherwise: the
  // crash or the exit status is part of the failure that --same-error keeps.
  for (const [name, source, kind, ending] of /** @type {[string, string, string, RegExp][]} */ ([
    [
      'a crash',
      'import ctypes, logging\nsteps = [1, 2]\ntry:\n    {}["k"]\nexcept KeyError:\n    logging.exception("BOOM handled, now crashing")\nctypes.string_at(0)\n',
      'killed by SIGSEGV',
      /string_at\(0\)/,
    ],
    [
      'an exit status',
      'import logging, sys\ndef main():\n    try:\n        {}["k"]\n    except KeyError:\n        logging.exception("BOOM config invalid")\n        return 2\n    return 0\nsys.exit(main())\n',
      'KeyError, then exit status 2',
      /exit\(|return 2/,
    ],
  ])) {
    for (const backend of BACKENDS) {
      test(`${name}, ${backend}`, async () => {
        const dir = fixture({ 'prog.py': source });
        const r = await runCli(
          [
            'prog.py',
            '--err-msg',
            'BOOM',
            '-o',
            'min.py',
            '--same-error',
            '--backend',
            backend,
            '--report',
            'r.json',
          ],
          { cwd: dir },
        );
        assert.equal(r.code, 0, r.stderr);
        const report = JSON.parse(fs.readFileSync(path.join(dir, 'r.json'), 'utf8'));
        assert.equal(report.failure.original.kind, kind);
        assert.equal(report.failure.result.kind, kind);
        assert.match(fs.readFileSync(path.join(dir, 'min.py'), 'utf8'), ending);
        const run = spawnSync('python3', ['min.py'], { cwd: dir, encoding: 'utf8' });
        const original = spawnSync('python3', ['prog.py'], { cwd: dir, encoding: 'utf8' });
        assert.equal(run.status, original.status);
        assert.equal(run.signal, original.signal);
      });
    }
  }
});

describe('--same-error', { skip }, () => {
  // MSG is printed before the failure; without --same-error any crash after the print
  // reproduces it, so the result ends with whatever is simplest.
  const source = `class TileError(Exception):
    pass

def run(tiles):
    print("kernel launch: tile overflow detected")
    for t in tiles:
        if t > 128:
            raise TileError(f"tile {t} too large")
    return sum(tiles)

run([64, 256])
`;

  test('keeps the exception type, and class-to-base leaves that class alone', async () => {
    const dir = fixture({ 'tiles.py': source });
    const plain = await runCli(['tiles.py', '--err-msg', 'tile overflow detected', '-o', 'plain.py'], {
      cwd: dir,
    });
    assert.equal(plain.code, 0, plain.stderr);
    assert.match(plain.stderr, /warning: the result fails with exit status 0, the original with TileError/);
    const r = await runCli(
      [
        'tiles.py',
        '--err-msg',
        'tile overflow detected',
        '-o',
        'same.py',
        '--same-error',
        '--report',
        'r.json',
      ],
      { cwd: dir },
    );
    assert.equal(r.code, 0, r.stderr);
    const result = runScanned(path.join(dir, 'same.py'), 'tile overflow detected');
    assert.equal(result.own, true);
    assert.equal(result.exception, 'TileError', fs.readFileSync(path.join(dir, 'same.py'), 'utf8'));
    assert.doesNotMatch(r.stderr, /warning/);
    const json = JSON.parse(fs.readFileSync(path.join(dir, 'r.json'), 'utf8'));
    assert.equal(json.sameError, true);
    assert.equal(json.failure.result.kind, 'TileError');
  });

  test('an exception class named beyond ASCII is read, kept and named', async () => {
    const dir = fixture({
      'größe.py': [
        'class Größenfehler(ValueError):',
        '    pass',
        '',
        'def prüfe(n):',
        '    if n > 2:',
        '        raise Größenfehler(f"too many: {n}")',
        '',
        'prüfe(1)',
        'prüfe(3)',
        '',
      ].join('\n'),
    });
    const r = await runCli(['größe.py', '--err-msg', 'too many', '-o', 'min.py'], { cwd: dir });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /original: Größenfehler, MSG in "Größenfehler: too many: 3"/);
    assert.doesNotMatch(r.stderr, /warning/);
    // class-to-base left the class alone: the result raises it, not ValueError.
    const result = runScanned(path.join(dir, 'min.py'), 'too many');
    assert.equal(result.exception, 'Größenfehler', fs.readFileSync(path.join(dir, 'min.py'), 'utf8'));
  });
});

describe('flaky failures', { skip }, () => {
  // Fails on every second run: a server this test starts answers "fail" and "ok" in
  // turn (runs are isolated from each other's files, not from the network).
  /** @type {net.Server} */
  let server;
  let port = 0;
  before(async () => {
    let calls = 0;
    server = net.createServer((socket) => {
      socket.on('error', () => {}); // a run killed mid-answer
      socket.end(calls++ % 2 === 0 ? 'fail' : 'ok');
    });
    await new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(undefined)));
    port = /** @type {net.AddressInfo} */ (server.address()).port;
  });
  after(() => server.close());
  const program = () => `import socket

values = [3, 1, 2]
total = sum(values)
with socket.create_connection(("127.0.0.1", ${port})) as s:
    verdict = s.recv(16).decode()
if verdict == "fail":
    raise ValueError(f"race lost after {total} steps")
print("ok")
`;

  test('an original that reproduces in one of two runs stops with exit 1 and names --retries', async () => {
    const dir = fixture({ 'flaky.py': program() });
    const r = await runCli(['flaky.py', '--err-msg', 'race lost', '-o', 'min.py'], { cwd: dir });
    assert.equal(r.code, 1, r.stderr);
    assert.match(
      r.stderr,
      /autodd: error: the original program is flaky: "race lost" showed in 1 of its 2 runs; give --retries N/,
    );
    assert.equal(fs.existsSync(path.join(dir, 'min.py')), false);
  });

  test('--retries N runs a candidate again, and the report counts the runs repeated', async () => {
    const dir = fixture({ 'flaky.py': program() });
    const r = await runCli(
      [
        'flaky.py',
        '--err-msg',
        'race lost',
        '-o',
        'min.py',
        '--retries',
        '3',
        '--backend',
        'subproc',
        '--report',
        'r.json',
      ],
      { cwd: dir },
    );
    assert.equal(r.code, 0, r.stderr);
    assert.match(
      r.stderr,
      /warning: the original reproduced in 1 of 2 runs; each candidate runs up to 3 times/,
    );
    const json = JSON.parse(fs.readFileSync(path.join(dir, 'r.json'), 'utf8'));
    assert.ok(json.retries.run > 0, JSON.stringify(json.retries));
    assert.equal(json.retries.allowed, 3);
    assert.equal(json.failure.original.runs, 2);
    assert.equal(json.failure.original.reproduced, 1);
    assert.equal(json.failure.result.runs, 2);
    const min = fs.readFileSync(path.join(dir, 'min.py'), 'utf8');
    assert.match(min, /race lost/);
  });

  test('--retries 0 and --retries abc get one line and exit 2', async () => {
    const dir = fixture({ 'flaky.py': program() });
    for (const value of ['0', 'abc', '-1', '1.5']) {
      const r = await runCli(['flaky.py', '--err-msg', 'race lost', '-o', 'min.py', `--retries=${value}`], {
        cwd: dir,
      });
      assert.equal(r.code, 2, r.stderr);
      assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
      assert.match(r.stderr, /^autodd: error: --retries must be a positive integer/);
    }
  });
});

describe('kinds of failure the checks must see alike', { skip }, () => {
  // SIGABRT shares its number with SIGIOT: both checks must name it alike.
  for (const [signal, kill] of [
    ['SIGKILL', 'os.kill(os.getpid(), 9)'],
    ['SIGABRT', 'os.abort()'],
  ]) {
    test(`a program killed by ${signal} fails the same way in the final check (--same-error)`, async () => {
      const dir = fixture({
        'dies.py': `import os\nprint("about to die: dead by signal", flush=True)\n${kill}\n`,
      });
      for (const backend of BACKENDS) {
        const r = await runCli(
          ['dies.py', '--err-msg', 'dead by signal', '-o', 'min.py', '--same-error', '--backend', backend],
          { cwd: dir },
        );
        assert.equal(r.code, 0, r.stderr);
        assert.match(r.stderr, new RegExp(`result: {3}killed by ${signal}, .*\\(2 of 2 runs reproduced\\)`));
      }
    });
  }

  // The runner's candidates are forks of a warm worker, not fresh interpreters: they
  // must still shut down as one does, and recurse as deep.
  for (const [name, file, source, msg, kind] of [
    [
      'an object that crashes as the program shuts down',
      'crash.py',
      'import ctypes\nclass Handle:\n    def __del__(self):\n        ctypes.string_at(0)\nhandle = Handle()\nprint("handle leaked", flush=True)\n',
      'handle leaked',
      'killed by SIGSEGV',
    ],
    [
      'an object that writes MSG as the program shuts down',
      'late.py',
      'import sys\nclass Conn:\n    def __del__(self):\n        sys.stderr.write("connection leaked at exit\\n")\nconn = Conn()\nprint("working")\n',
      'connection leaked',
      'exit status 0',
    ],
    [
      'an object that writes MSG as a program ends by an exception',
      'raises.py',
      'import sys\nclass Conn:\n    def __del__(self):\n        sys.stderr.write("connection leaked at exit\\n")\nconn = Conn()\nraise ValueError("boom")\n',
      'connection leaked',
      'ValueError',
    ],
    [
      'a recursion just short of the limit',
      'deep.py',
      'def nest(node, depth=0):\n    if node is None:\n        raise ValueError(f"unbalanced tree at depth {depth}")\n    return nest(node.get("child"), depth + 1)\ntree = None\nfor _ in range(990):\n    tree = {"child": tree}\nnest(tree)\n',
      'unbalanced tree',
      'ValueError',
    ],
  ]) {
    test(`${name} fails the same way in every check (--same-error)`, async () => {
      const dir = fixture({ [file]: source });
      for (const backend of BACKENDS) {
        const r = await runCli(
          [file, '--err-msg', msg, '-o', 'min.py', '--same-error', '--backend', backend],
          {
            cwd: dir,
          },
        );
        assert.equal(r.code, 0, `${backend}: ${r.stderr}`);
        assert.match(r.stderr, new RegExp(`original: ${kind}, MSG in `), backend);
        assert.match(
          r.stderr,
          new RegExp(`result: {3}${kind}, MSG in .*\\(2 of 2 runs reproduced\\)`),
          backend,
        );
      }
    });
  }

  test('a program recurses exactly as deep in every check', async () => {
    const dir = fixture({
      'deepest.py':
        'def f(n):\n    return 0 if n == 0 else f(n - 1) + 1\nbest, lo, hi = 0, 1, 5000\nwhile lo <= hi:\n    mid = (lo + hi) // 2\n    try:\n        f(mid)\n        best, lo = mid, mid + 1\n    except RecursionError:\n        hi = mid - 1\nprint("deepest", best)\n',
    });
    const plain = spawnSync('python3', ['deepest.py'], { cwd: dir, encoding: 'utf8' }).stdout.trim();
    assert.match(plain, /^deepest \d+$/);
    for (const backend of BACKENDS) {
      const r = await runCli(['deepest.py', '--err-msg', plain, '-o', 'min.py', '--backend', backend], {
        cwd: dir,
      });
      assert.equal(r.code, 0, `${backend}: ${r.stderr}`);
    }
  });

  // Python 3.13 colors its tracebacks when FORCE_COLOR is set, even into a pipe.
  const pyenv = path.join(process.env.PYENV_ROOT ?? path.join(os.homedir(), '.pyenv'), 'versions');
  const python313 = [
    'python3.13',
    ...(fs.existsSync(pyenv) ? fs.readdirSync(pyenv) : [])
      .filter((v) => v.startsWith('3.13'))
      .map((v) => path.join(pyenv, v, 'bin', 'python3.13')),
  ].find((p) => spawnSync(p, ['-c', 'pass']).status === 0);
  test(
    'colored tracebacks (Python 3.13, FORCE_COLOR) are still read',
    { skip: python313 ? false : 'no python3.13 here' },
    async () => {
      const program = PROGRAMS[0];
      const dir = fixture({ 'bug.py': program.source });
      const r = await runCli(
        ['bug.py', '--err-msg', program.msg, '-o', 'min.py', '--python', /** @type {string} */ (python313)],
        { cwd: dir, env: { FORCE_COLOR: '1' } },
      );
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stderr, /original: AssertionError, MSG in /);
      assert.match(r.stderr, /result: {3}AssertionError, MSG in /);
    },
  );
});
