// The real `autodd` command against real python3, for each backend where it applies.
// Needs the wasm engine: run scripts/build-wasm.sh nodejs first.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, test } from 'node:test';
import {
  BACKENDS,
  canCollapse,
  EXAMPLE,
  fixture,
  HAVE_ENGINE,
  lineCount,
  processesWithMark,
  runCli,
  runPython,
  waitFor,
} from './helpers.js';

const skip = HAVE_ENGINE ? false : 'the wasm engine is not built (scripts/build-wasm.sh nodejs)';

/** A program with traps: candidates that loop forever, segfault or exit early. */
const TRAPS = `import os
import ctypes

flag = os.environ.get("AUTODD_NEVER_SET_THIS") is not None


def helper(n):
    total = 0
    for i in range(n):
        total += i
    return total


class Config:
    def __init__(self):
        self.size = 4
        self.name = "cfg"


n = 0
while n < 3:
    n += 1

if flag:
    ctypes.string_at(0)
if flag:
    os._exit(0)

cfg = Config()
print("setup", helper(cfg.size), cfg.name)
for k in range(3):
    print("step", k)


def check(value):
    if value != 3:
        raise RuntimeError("value check failed: " + str(value))


check(n + 1)
`;

const FREEZE = `from autodd import __freeze__
import os
kept_line = 1  # autodd: freeze
dropped_a = 10
# autodd: freeze-start
kept_block_1 = 2
kept_block_2 = 3
# autodd: end-freeze
dropped_b = 20
with __freeze__:
    kept_with = 4
kept_call = __freeze__(5 + 6)
dropped_c = 30
print("FROZEN-BUG")
`;

/**
 * Checks that a failed run printed one `autodd: error:` line and nothing like a stack trace.
 * @param {import('./helpers.js').CliRun} run
 * @param {RegExp} message
 */
function assertUserError(run, message) {
  assert.equal(run.code, 2, run.stderr);
  const lines = run.stderr.trimEnd().split('\n');
  assert.equal(lines.length, 1, run.stderr);
  assert.match(lines[0], /^autodd: error: /);
  assert.match(lines[0], message);
}

/**
 * An `onStderr` for runCli that sends SIGINT once two candidates were accepted
 * (OUTPUT has been replaced by then); `sent()` says whether it did.
 */
function interruptAfterTwoAccepts() {
  let sent = false;
  return {
    sent: () => sent,
    /** @type {(text: string, child: import('node:child_process').ChildProcess) => void} */
    onStderr: (text, child) => {
      if (!sent && (text.match(/accepted #/g) ?? []).length >= 2) {
        sent = true;
        child.kill('SIGINT');
      }
    },
  };
}

describe('bad input', { skip }, () => {
  const dir = fixture({
    'ok.py': 'print("BUG")\n',
    'empty.py': '',
    'blank.py': '\n   \n',
    'latin1.py': Buffer.from([0x70, 0x72, 0x69, 0x6e, 0x74, 0x28, 0x22, 0xe9, 0x22, 0x29, 0x0a]),
    'syntax.py': 'x = 1\nif x:\n    y = (1,\nprint("BUG")\n',
    'nul.py': 'x = 1\0\nprint("BUG")\n',
    // Valid UTF-8 that Python reads as Latin-1: "cafÃ©", not "café".
    'declared.py': '#!/usr/bin/env python3\n# -*- coding: latin-1 -*-\ns = "café"\nprint("BUG", s)\n',
  });
  fs.mkdirSync(path.join(dir, 'adir'));
  fs.symlinkSync(path.join(dir, 'ok.py'), path.join(dir, 'link.py'));
  fs.writeFileSync(path.join(dir, 'other.py'), 'x = 1\n');
  fs.symlinkSync(path.join(dir, 'other.py'), path.join(dir, 'elsewhere.py'));
  // A FIFO as SOURCE would block its read for good; as OUTPUT it, like a device or a
  // link, would be replaced by a plain file.
  spawnSync('mkfifo', [path.join(dir, 'pipe.py')]);
  const out = path.join(dir, 'out.py');
  /** @type {[string, string[], RegExp][]} */
  const cases = [
    ['missing SOURCE', ['--err-msg', 'BUG', '-o', out], /missing SOURCE/],
    ['nonexistent SOURCE', ['nope.py', '--err-msg', 'BUG', '-o', out], /cannot read nope\.py: no such file/],
    ['a directory', ['adir', '--err-msg', 'BUG', '-o', out], /adir is a directory/],
    ['non-UTF-8', ['latin1.py', '--err-msg', 'BUG', '-o', out], /not valid UTF-8/],
    [
      'an encoding other than UTF-8 declared',
      ['declared.py', '--err-msg', 'BUG', '-o', out],
      /declared\.py declares its encoding as latin-1, and autodd reads UTF-8 only: convert it \(iconv -f ISO-8859-1 -t UTF-8\)/,
    ],
    ['an empty file', ['empty.py', '--err-msg', 'BUG', '-o', out], /empty\.py is empty/],
    ['a blank file', ['blank.py', '--err-msg', 'BUG', '-o', out], /blank\.py is empty/],
    ['a syntax error', ['syntax.py', '--err-msg', 'BUG', '-o', out], /syntax\.py: .*line \d+, column \d+/],
    ['missing --err-msg', ['ok.py', '-o', out], /missing --err-msg/],
    ['an empty --err-msg', ['ok.py', '--err-msg', '', '-o', out], /--err-msg must not be empty/],
    [
      'a blank --err-msg',
      ['ok.py', '--err-msg', '  ', '-o', out],
      /--err-msg must not be empty or only spaces/,
    ],
    ['missing -o', ['ok.py', '--err-msg', 'BUG'], /missing -o OUTPUT/],
    ['-j 0', ['ok.py', '--err-msg', 'BUG', '-o', out, '-j', '0'], /-j must be a positive integer/],
    [
      'a non-numeric timeout',
      ['ok.py', '--err-msg', 'BUG', '-o', out, '--timeout', 'soon'],
      /--timeout must be/,
    ],
    ['an unknown backend', ['ok.py', '--err-msg', 'BUG', '-o', out, '--backend', 'docker'], /--backend/],
    [
      'a non-numeric memory limit',
      ['ok.py', '--err-msg', 'BUG', '-o', out, '--memory-limit', 'lots'],
      /--memory-limit must be a positive number of MiB/,
    ],
    [
      'a memory limit and no memory limit',
      ['ok.py', '--err-msg', 'BUG', '-o', out, '--memory-limit', '100', '--no-memory-limit'],
      /not both/,
    ],
    [
      'a memory limit with subproc',
      ['ok.py', '--err-msg', 'BUG', '-o', out, '--memory-limit', '100', '--backend', 'subproc'],
      /memory limit needs the runner backend/,
    ],
    [
      'missing Python',
      ['ok.py', '--err-msg', 'BUG', '-o', out, '--python', '/no/python3'],
      /cannot run Python/,
    ],
    [
      'an unknown option',
      ['ok.py', '--err-msg', 'BUG', '-o', out, '--frobnicate'],
      /^autodd: error: unknown option '--frobnicate' \(see autodd --help\)$/m,
    ],
    [
      '--report naming SOURCE',
      ['ok.py', '--err-msg', 'BUG', '-o', out, '--report', 'ok.py'],
      /ok\.py is the source file itself \(--report must be another file\)/,
    ],
    [
      'a null byte in SOURCE',
      ['nul.py', '--err-msg', 'BUG', '-o', out],
      /^autodd: error: nul\.py: syntax error: source code string cannot contain null bytes/m,
    ],
    [
      '-j -1',
      ['ok.py', '--err-msg', 'BUG', '-o', out, '-j', '-1'],
      /-j must be a positive integer, not '-1'/,
    ],
    ['--gpus -1', ['ok.py', '--err-msg', 'BUG', '-o', out, '--gpus', '-1'], /--gpus takes device indices/],
    [
      '-j 1e9',
      ['ok.py', '--err-msg', 'BUG', '-o', out, '-j', '1e9', '--force-jobs'],
      /-j must be a positive integer, not '1e9'/,
    ],
    [
      '-j 0x2',
      ['ok.py', '--err-msg', 'BUG', '-o', out, '-j', '0x2'],
      /-j must be a positive integer, not '0x2'/,
    ],
    [
      '--timeout -5',
      ['ok.py', '--err-msg', 'BUG', '-o', out, '--timeout', '-5'],
      /--timeout must be a positive number/,
    ],
    [
      '-j 1000 on this machine',
      ['ok.py', '--err-msg', 'BUG', '-o', out, '-j', '1000'],
      /1000 jobs is more than 4 times the \d+ CPUs .*--force-jobs/,
    ],
    ['OUTPUT = SOURCE', ['ok.py', '--err-msg', 'BUG', '-o', 'ok.py'], /ok\.py is the source file itself/],
    [
      'a named pipe as SOURCE',
      ['pipe.py', '--err-msg', 'BUG', '-o', out],
      /pipe\.py is a named pipe, not a Python file/,
    ],
    [
      'a named pipe as OUTPUT',
      ['ok.py', '--err-msg', 'BUG', '-o', 'pipe.py'],
      /pipe\.py is a named pipe; OUTPUT must be a regular file/,
    ],
    [
      'a link as OUTPUT',
      ['ok.py', '--err-msg', 'BUG', '-o', 'elsewhere.py'],
      /elsewhere\.py is a symbolic link \(to .*other\.py\): .*give the file it points to/,
    ],
    [
      'a timeout longer than a timer takes',
      ['ok.py', '--err-msg', 'BUG', '-o', out, '--timeout', '99999999999'],
      /the timeout must be at most 1000000 seconds/,
    ],
    [
      'OUTPUT a symlink to SOURCE',
      ['ok.py', '--err-msg', 'BUG', '-o', 'link.py'],
      /link\.py is the source file itself/,
    ],
    [
      'OUTPUT in a folder that does not exist',
      ['ok.py', '--err-msg', 'BUG', '-o', path.join(dir, 'no', 'such', 'out.py')],
      /cannot write .*out\.py: no such file or directory/,
    ],
    [
      '--report = OUTPUT',
      ['ok.py', '--err-msg', 'BUG', '-o', out, '--report', out],
      /--report .* is OUTPUT itself/,
    ],
    [
      '--trace = OUTPUT',
      ['ok.py', '--err-msg', 'BUG', '-o', out, '--trace', out],
      /--trace .* is OUTPUT itself/,
    ],
    [
      'a missing --stdin file',
      ['ok.py', '--err-msg', 'BUG', '-o', out, '--stdin', 'nope.txt'],
      /cannot read nope\.txt/,
    ],
    [
      'a missing --warm-up file',
      ['ok.py', '--err-msg', 'BUG', '-o', out, '--warm-up', 'nope-warm.py'],
      /cannot read nope-warm\.py \(the warm-up program\)/,
    ],
    [
      'OUTPUT = the --stdin file',
      ['ok.py', '--err-msg', 'BUG', '-o', 'other.py', '--stdin', 'other.py'],
      /other\.py is the --stdin file \(OUTPUT must be another file\)/,
    ],
    [
      'OUTPUT = the --warm-up file',
      ['ok.py', '--err-msg', 'BUG', '-o', 'other.py', '--warm-up', 'other.py'],
      /other\.py is the --warm-up file \(OUTPUT must be another file\)/,
    ],
    [
      '--report = the --stdin file',
      ['ok.py', '--err-msg', 'BUG', '-o', out, '--report', 'elsewhere.py', '--stdin', 'other.py'],
      /elsewhere\.py is the --stdin file \(--report must be another file\)/,
    ],
    [
      '--warm-up with subproc',
      ['ok.py', '--err-msg', 'BUG', '-o', out, '--warm-up', 'ok.py', '--backend', 'subproc'],
      /--warm-up needs the runner backend/,
    ],
  ];
  for (const [what, args, message] of cases) {
    test(`rejects ${what} with exit 2`, async () => {
      const run = await runCli(args, { cwd: dir });
      assertUserError(run, message);
      assert.equal(fs.existsSync(out), false, 'no output file is written');
      assert.ok(fs.lstatSync(path.join(dir, 'pipe.py')).isFIFO(), 'the named pipe is left as it was');
      assert.ok(fs.lstatSync(path.join(dir, 'elsewhere.py')).isSymbolicLink(), 'the link is left as it was');
    });
  }

  test('--help and --version', async () => {
    const help = await runCli(['--help']);
    assert.equal(help.code, 0);
    assert.match(help.stdout, /Usage: autodd SOURCE --err-msg MSG -o OUTPUT/);
    const version = await runCli(['--version']);
    assert.match(version.stdout, /^autodd \d+\.\d+\.\d+/);
  });
});

describe('reproduction check', { skip }, () => {
  // With -j 2 the original runs twice at once (for the timing), on two workers.
  for (const jobs of ['1', '2']) {
    test(`-j ${jobs}: refuses a program whose output lacks MSG, with exit 1 and its output`, async () => {
      const dir = fixture({ 'fine.py': 'print("all good")\nimport sys\nprint("warn", file=sys.stderr)\n' });
      const run = await runCli(['fine.py', '--err-msg', 'BUG', '-o', 'out.py', '-j', jobs], { cwd: dir });
      assert.equal(run.code, 1, run.stderr);
      assert.match(run.stderr, /^autodd: error: the original program does not reproduce/);
      assert.match(run.stderr, /all good/);
      assert.match(run.stderr, /warn/);
      assert.doesNotMatch(run.stderr, /accepted/);
      assert.equal(fs.existsSync(path.join(dir, 'out.py')), false);
    });
  }
});

for (const backend of BACKENDS) {
  describe(`reduce with the ${backend} backend`, { skip }, () => {
    test('reduces through timeouts and crashing candidates; the result reproduces', async () => {
      const dir = fixture({ 'traps.py': TRAPS });
      const run = await runCli(
        [
          'traps.py',
          '--err-msg',
          'value check failed',
          '-o',
          'min.py',
          '--backend',
          backend,
          '--timeout',
          '1',
          '--report',
          'report.json',
        ],
        { cwd: dir },
      );
      assert.equal(run.code, 0, run.stderr);
      const result = fs.readFileSync(path.join(dir, 'min.py'), 'utf8');
      assert.ok(lineCount(result) <= 6, result);
      assert.match(runPython('min.py', dir).output, /value check failed/);
      assert.match(run.stderr, /reproduces when run on its own/);
      const report = JSON.parse(fs.readFileSync(path.join(dir, 'report.json'), 'utf8'));
      assert.equal(report.reproduced, true);
      assert.ok(report.steps.length > 0);
      assert.ok(report.stats.accepted > 0);
      assert.deepEqual(processesWithMark(run.mark), [], 'no process is left behind');
      assert.deepEqual(
        fs.readdirSync(dir).sort(),
        ['min.py', 'report.json', 'traps.py'],
        'no temp file is left behind',
      );
      assert.deepEqual(fs.readdirSync(run.tmp), [], 'the private temp folder is removed');
    });

    test('-j 2 gives a correct result', async () => {
      const dir = fixture({ 'traps.py': TRAPS });
      const run = await runCli(
        [
          'traps.py',
          '--err-msg',
          'value check failed',
          '-o',
          'min.py',
          '--backend',
          backend,
          '--timeout',
          '1',
          '-j',
          '2',
        ],
        { cwd: dir },
      );
      assert.equal(run.code, 0, run.stderr);
      const result = fs.readFileSync(path.join(dir, 'min.py'), 'utf8');
      assert.ok(lineCount(result) <= 6, result);
      assert.match(runPython('min.py', dir).output, /value check failed/);
    });

    test('every freeze form survives', async () => {
      const dir = fixture({ 'frozen.py': FREEZE });
      const run = await runCli(
        ['frozen.py', '--err-msg', 'FROZEN-BUG', '-o', 'min.py', '--backend', backend],
        {
          cwd: dir,
        },
      );
      assert.equal(run.code, 0, run.stderr);
      const result = fs.readFileSync(path.join(dir, 'min.py'), 'utf8');
      for (const kept of [
        'kept_line = 1',
        'kept_block_1 = 2',
        'kept_block_2 = 3',
        'kept_with = 4',
        '5 + 6',
      ]) {
        assert.ok(result.includes(kept), `${kept} is kept in:\n${result}`);
      }
      for (const dropped of ['dropped_a', 'dropped_b', 'dropped_c', 'import os']) {
        assert.ok(!result.includes(dropped), `${dropped} is removed from:\n${result}`);
      }
      // Markers are stripped by default, so the result runs without autodd.
      assert.ok(!result.includes('__freeze__'), result);
      assert.match(runPython('min.py', dir).output, /FROZEN-BUG/);
    });

    test('--keep-freeze keeps the markers, imported from tilelang.autodd too', async () => {
      const source = FREEZE.replace('from autodd import', 'from tilelang.autodd import');
      const dir = fixture({ 'frozen.py': source });
      const run = await runCli(
        ['frozen.py', '--err-msg', 'FROZEN-BUG', '-o', 'min.py', '--backend', backend, '--keep-freeze'],
        { cwd: dir },
      );
      assert.equal(run.code, 0, run.stderr);
      const result = fs.readFileSync(path.join(dir, 'min.py'), 'utf8');
      assert.match(result, /with __freeze__:/);
      assert.match(result, /__freeze__\(5 \+ 6\)/);
    });

    test('SIGINT leaves a reproducing OUTPUT, exits 130 and leaves no process behind', async () => {
      const dir = fixture({ 'bug.py': fs.readFileSync(EXAMPLE, 'utf8') });
      const interrupt = interruptAfterTwoAccepts();
      const run = await runCli(
        [
          'bug.py',
          '--err-msg',
          'T.gemm K shape check failed',
          '-o',
          'min.py',
          '--backend',
          backend,
          '-j',
          '2',
          '--timeout',
          '5',
        ],
        {
          cwd: dir,
          onStderr: interrupt.onStderr,
        },
      );
      assert.ok(interrupt.sent(), run.stderr);
      assert.equal(run.code, 130, run.stderr);
      assert.match(run.stderr, /interrupted/);
      const result = fs.readFileSync(path.join(dir, 'min.py'), 'utf8');
      assert.ok(lineCount(result) < lineCount(fs.readFileSync(EXAMPLE, 'utf8')));
      assert.match(runPython('min.py', dir).output, /T\.gemm K shape check failed/);
      await waitFor(() => processesWithMark(run.mark).length === 0, 2000).catch(() => {});
      assert.deepEqual(processesWithMark(run.mark), []);
      const leftovers = fs.readdirSync(dir).filter((f) => f.endsWith('.tmp'));
      assert.deepEqual(leftovers, []);
      assert.deepEqual(fs.readdirSync(run.tmp), [], 'the private temp folder is removed');
    });
  });
}

describe('SIGHUP (the terminal went away)', { skip }, () => {
  test('stops as Ctrl-C does: OUTPUT reproduces, --report is written; then ends by SIGHUP', async () => {
    const dir = fixture({ 'bug.py': fs.readFileSync(EXAMPLE, 'utf8') });
    let sent = false;
    const run = await runCli(
      ['bug.py', '--err-msg', 'T.gemm K shape check failed', '-o', 'min.py', '--report', 'report.json'],
      {
        cwd: dir,
        onStderr: (text, child) => {
          if (!sent && (text.match(/accepted #/g) ?? []).length >= 2) {
            sent = true;
            child.kill('SIGHUP');
          }
        },
      },
    );
    assert.ok(sent, run.stderr);
    assert.equal(run.signal, 'SIGHUP', `${run.code} ${run.stderr}`);
    assert.match(run.stderr, /interrupted/);
    const report = JSON.parse(fs.readFileSync(path.join(dir, 'report.json'), 'utf8'));
    assert.equal(report.interrupted, true);
    assert.match(runPython('min.py', dir).output, /T\.gemm K shape check failed/);
    await waitFor(() => processesWithMark(run.mark).length === 0, 2000).catch(() => {});
    assert.deepEqual(processesWithMark(run.mark), []);
  });
});

describe('OUTPUT that can no longer be written', { skip }, () => {
  test('stops the reduction with one line, exit 2, and leaves no process behind', async () => {
    const dir = fixture({ 'bug.py': fs.readFileSync(EXAMPLE, 'utf8') });
    fs.mkdirSync(path.join(dir, 'out'));
    let removed = false;
    const run = await runCli(['bug.py', '--err-msg', 'T.gemm K shape check failed', '-o', 'out/min.py'], {
      cwd: dir,
      onStderr: (text) => {
        // Once a candidate was accepted, OUTPUT's folder goes (renamed away at once,
        // whatever write is under way): the next write fails.
        if (!removed && /accepted #/.test(text)) {
          removed = true;
          fs.renameSync(path.join(dir, 'out'), path.join(dir, 'gone'));
        }
      },
    });
    assert.ok(removed, run.stderr);
    assert.equal(run.code, 2, run.stderr);
    assert.match(run.stderr, /^autodd: error: cannot write out\/min\.py: no such file or directory$/m);
    assert.doesNotMatch(run.stderr, /^\s+at /m, 'no stack trace');
    await waitFor(() => processesWithMark(run.mark).length === 0, 2000).catch(() => {});
    assert.deepEqual(processesWithMark(run.mark), []);
  });
});

describe('interrupted with freeze comments', { skip }, () => {
  test('OUTPUT runs under plain python3: the added __freeze__ import is gone', async () => {
    const source = fs
      .readFileSync(EXAMPLE, 'utf8')
      .replace('import itertools\n', 'import itertools  # autodd: freeze\n');
    assert.match(source, /# autodd: freeze\n/);
    const dir = fixture({ 'bug.py': source });
    const interrupt = interruptAfterTwoAccepts();
    const run = await runCli(
      ['bug.py', '--err-msg', 'T.gemm K shape check failed', '-o', 'min.py', '--timeout', '5'],
      {
        cwd: dir,
        onStderr: interrupt.onStderr,
      },
    );
    assert.ok(interrupt.sent(), run.stderr);
    assert.equal(run.code, 130, run.stderr);
    const result = fs.readFileSync(path.join(dir, 'min.py'), 'utf8');
    assert.doesNotMatch(result, /__freeze__/);
    assert.match(result, /import itertools/);
    assert.match(runPython('min.py', dir).output, /T\.gemm K shape check failed/);
  });
});

describe('common code in a bug report', { skip }, () => {
  test('a loop over test cases ends as the one case that fails', async () => {
    const dir = fixture({
      'cases.py': [
        'def check(shape):',
        '    rows, cols = shape',
        '    if rows != cols:',
        '        raise ValueError(f"not square: {rows}x{cols}")',
        'for shape in [(64, 64), (128, 128), (64, 32), (32, 32)]:',
        '    check(shape)',
        '',
      ].join('\n'),
    });
    const run = await runCli(
      ['cases.py', '--err-msg', 'not square: 64x32', '-o', 'min.py', '--timeout', '5'],
      {
        cwd: dir,
      },
    );
    assert.equal(run.code, 0, run.stderr);
    const result = fs.readFileSync(path.join(dir, 'min.py'), 'utf8');
    // The loop is gone; its failing item is what the body runs on.
    assert.doesNotMatch(result, /\bfor\b/, result);
    assert.match(result, /64, 32/, result);
    assert.doesNotMatch(result, /128/, result);
    assert.match(runPython('min.py', dir).output, /not square: 64x32/);
  });
});

describe('the example', { skip }, () => {
  test('tile_kernel_bug.py reduces to at most 15% of its lines and still fails', async () => {
    const dir = fixture({ 'tile_kernel_bug.py': fs.readFileSync(EXAMPLE, 'utf8') });
    const run = await runCli(
      [
        'tile_kernel_bug.py',
        '--err-msg',
        'T.gemm K shape check failed',
        '-o',
        'min.py',
        '-j',
        '2',
        '--timeout',
        '5',
        '--report',
        'report.json',
      ],
      { cwd: dir },
    );
    assert.equal(run.code, 0, run.stderr);
    // OUTPUT is the reported result: the smallest program, not the last accepted one
    // (a canonicalizing step may have grown that).
    const report = JSON.parse(fs.readFileSync(path.join(dir, 'report.json'), 'utf8'));
    assert.equal(fs.statSync(path.join(dir, 'min.py')).size, report.final.bytes);
    assert.equal(report.final.bytes, report.stats.bestBytes);
    const original = lineCount(fs.readFileSync(EXAMPLE, 'utf8'));
    const result = fs.readFileSync(path.join(dir, 'min.py'), 'utf8');
    assert.ok(lineCount(result) <= 0.15 * original, `${lineCount(result)} of ${original} lines:\n${result}`);
    assert.match(runPython('min.py', dir).output, /T\.gemm K shape check failed/);
  });
});

describe('--warm-up', { skip }, () => {
  test('workers run it before forking; the final check runs the result without it', async () => {
    const dir = fixture({
      // The warm-up leaves MSG in the worker's builtins, which candidates inherit; a
      // plain run of the program makes MSG itself, a smaller candidate only reads it.
      'warm.py': 'import builtins\nbuiltins.AUTODD_WARM = "WARM-UP " + "seen"\nprint("warm-up output")\n',
      'prog.py':
        'import builtins\nunused = 1\nprint(getattr(builtins, "AUTODD_WARM", None) or "WARM-UP " + "seen")\n',
    });
    const run = await runCli(
      ['prog.py', '--err-msg', 'WARM-UP seen', '-o', 'min.py', '--warm-up', 'warm.py', '--report', 'r.json'],
      { cwd: dir },
    );
    // Not the reproducer asked for: exit 1, with OUTPUT written all the same.
    assert.equal(run.code, 1, run.stderr);
    assert.ok(fs.existsSync(path.join(dir, 'min.py')));
    const report = JSON.parse(fs.readFileSync(path.join(dir, 'r.json'), 'utf8'));
    assert.equal(report.warmUp, path.join(dir, 'warm.py'));
    assert.equal(report.warmUpDropped, false);
    assert.equal(report.failure.original.reproduced, 2, 'the original reproduces in warmed-up workers');
    assert.equal(report.failure.result.reproduced, 0, 'the final check ran the result as python3 would');
    assert.match(run.stderr, /did NOT reproduce in 2 runs on its own/);
    assert.doesNotMatch(run.stdout + run.stderr, /warm-up output/);
    const quiet = await runCli(
      ['prog.py', '--err-msg', 'WARM-UP seen', '-o', 'min.py', '--warm-up', 'warm.py', '--quiet'],
      { cwd: dir },
    );
    assert.equal(quiet.code, 1, quiet.stderr);
    assert.match(
      quiet.stderr,
      /^autodd: warning: wrote min\.py, but it did NOT reproduce in 2 runs on its own/m,
    );
  });
});

describe('a result whose MSG came from its file name', { skip }, () => {
  test('says so rather than calling the failure flaky', async () => {
    const dir = fixture({
      'bugfile.py': 'import os\nunused = 1\nraise RuntimeError("broken in " + os.path.basename(__file__))\n',
    });
    const other = await runCli(['bugfile.py', '--err-msg', 'broken in bugfile', '-o', 'out.py'], {
      cwd: dir,
    });
    assert.equal(other.code, 1, other.stderr);
    assert.match(
      other.stderr,
      /did NOT reproduce in 2 runs on its own: MSG holds "bugfile", the program's file name, and the result runs as out\.py/,
    );
    assert.doesNotMatch(other.stderr, /flaky/);
    // Named so, the same result reproduces.
    const named = await runCli(['bugfile.py', '--err-msg', 'broken in bugfile', '-o', 'bugfile.min.py'], {
      cwd: dir,
    });
    assert.equal(named.code, 0, named.stderr);
    assert.match(runPython('bugfile.min.py', dir).output, /broken in bugfile\.min\.py/);
  });
});

describe(
  'a result whose MSG depends on the hash seed',
  {
    skip: skip || (process.env.PYTHONHASHSEED !== undefined && 'PYTHONHASHSEED is set here'),
  },
  () => {
    test('names the seed the reduction ran with', async () => {
      const words = '{"alpha", "beta", "gamma", "delta", "epsilon", "zeta"}';
      const order = spawnSync('python3', ['-c', `print(" ".join(${words}))`], {
        env: { ...process.env, PYTHONHASHSEED: '0' },
        encoding: 'utf8',
      }).stdout.trim();
      const dir = fixture({ 'seeded.py': `unused = 1\nprint(" ".join(${words}))\n` });
      const run = await runCli(['seeded.py', '--err-msg', order, '-o', 'min.py'], { cwd: dir });
      assert.equal(run.code, 1, run.stderr);
      assert.match(run.stderr, /or it depends on the hash seed \(the reduction ran with PYTHONHASHSEED=0/);
    });
  },
);

describe('--warm-up that ends the worker', { skip }, () => {
  test('is dropped with a warning, and the report says so', async () => {
    const dir = fixture({
      'warm.py': 'import os\nos._exit(3)\n',
      'prog.py': 'unused = 1\nraise ValueError("WARM-" + "LESS")\n',
    });
    const run = await runCli(
      ['prog.py', '--err-msg', 'WARM-LESS', '-o', 'min.py', '--warm-up', 'warm.py', '--report', 'r.json'],
      { cwd: dir },
    );
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stderr, /did not start with the warm-up program .*warm\.py .*going on without it/);
    const report = JSON.parse(fs.readFileSync(path.join(dir, 'r.json'), 'utf8'));
    assert.equal(report.warmUp, path.join(dir, 'warm.py'));
    assert.equal(report.warmUpDropped, true);
    assert.doesNotMatch(fs.readFileSync(path.join(dir, 'min.py'), 'utf8'), /unused/);
  });
});

describe('huge pages', { skip: (skip || !canCollapse()) && 'no MADV_COLLAPSE here' }, () => {
  test('a program that imports a large library: the report gives its heap in huge pages, 0 with --no-huge-pages', async () => {
    const modules = fixture({ 'autodd_big_lib.py': 'DATA = b"autodd" * (16 << 20)\n' });
    const dir = fixture({
      'prog.py': 'import autodd_big_lib\nunused = 1\nprint("HUGE-" + "BUG", len(autodd_big_lib.DATA))\n',
    });
    /** @type {number[][]} */
    const seen = [];
    for (const flags of [[], ['--no-huge-pages']]) {
      const run = await runCli(
        ['prog.py', '--err-msg', 'HUGE-BUG', '-o', 'min.py', '--report', 'r.json', ...flags],
        {
          cwd: dir,
          env: { PYTHONPATH: modules },
        },
      );
      assert.equal(run.code, 0, run.stderr);
      seen.push(JSON.parse(fs.readFileSync(path.join(dir, 'r.json'), 'utf8')).hugePagesMib);
    }
    assert.ok(seen[0].length === 1 && seen[0][0] >= 90, JSON.stringify(seen));
    assert.deepEqual(seen[1], [0]);
  });
});

describe('engine switches and the adaptive timeout', { skip }, () => {
  // Removing `n += 1` makes the loop endless: with the full 60 s timeout such a
  // candidate would cost a minute; the adaptive cap stops it within a second.
  const HANGS = `def count():
    n = 0
    while n < 3:
        n += 1
    return n


total = count()
print("HANG" + "-CHECK failed with", total)
`;
  /**
   * Runs the command in `dir` with a report, which it must end with exit 0; the run
   * and the report.
   * @param {string} dir
   * @param {string[]} args
   */
  const reported = async (dir, args) => {
    const report = path.join(dir, 'report.json');
    const run = await runCli([...args, '--report', report], { cwd: dir });
    assert.equal(run.code, 0, run.stderr);
    return { run, data: JSON.parse(fs.readFileSync(report, 'utf8')) };
  };
  /** The runs a `--trace` file records, one object per line. @param {string} file */
  const traced = (file) =>
    fs
      .readFileSync(file, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));

  test('candidates are capped at a multiple of the original run time; --trace shows each run', async () => {
    const dir = fixture({ 'hangs.py': HANGS });
    const report = path.join(dir, 'report.json');
    const trace = path.join(dir, 'trace.jsonl');
    const run = await runCli(
      [
        'hangs.py',
        '--err-msg',
        // The count must stay 3: the loop cannot go, and without `n += 1` it hangs.
        'HANG-CHECK failed with 3',
        '-o',
        'out.py',
        '--timeout',
        '60',
        '--report',
        report,
        '--trace',
        trace,
        '--quiet',
      ],
      { cwd: dir },
    );
    assert.equal(run.code, 0, run.stderr);
    const data = JSON.parse(fs.readFileSync(report, 'utf8'));
    // 10 × a run of a few milliseconds, plus 20 ms.
    assert.ok(data.candidateTimeout > 0.02 && data.candidateTimeout < 2, `cap ${data.candidateTimeout} s`);
    assert.equal(data.reproduced, true);
    const runs = traced(trace);
    assert.equal(runs.length, data.tried);
    assert.ok(runs.every((r) => r.counted));
    const hung = runs.filter((r) => r.outcome === 'timeout');
    assert.ok(hung.length >= 1, 'removing `n += 1` hangs');
    assert.equal(data.outcomes.timeout, hung.length);
    for (const r of hung) {
      assert.equal(r.found, false);
      assert.ok(r.ms < data.candidateTimeout * 1000 + 1000, `a hang took ${r.ms} ms`);
    }
    assert.equal(runs.filter((r) => r.found).length, data.stats.accepted);
    for (const r of runs) {
      assert.ok(typeof r.phase === 'string' && Array.isArray(r.rewrites) && r.sites >= 1 && r.bytes > 0);
    }
    // One job: each run starts after the one before it ended (times rounded to 0.1 ms).
    for (let i = 1; i < runs.length; i++) {
      assert.ok(
        runs[i].startMs >= runs[i - 1].startMs + runs[i - 1].ms - 0.2,
        JSON.stringify(runs.slice(i - 1, i + 1)),
      );
    }
    assert.match(runPython(path.join(dir, 'out.py'), dir).output, /HANG-CHECK failed/);
  });

  test('a rewrite that hung alone is tried alone in later rounds; --no-hang-memory lets groups hang again', async () => {
    const assignments = Array.from({ length: 12 }, (_, i) => `a${i} = ${i}\n`).join('');
    const source = `${assignments}n = 0\nwhile n < 3:\n    n += 1\nprint("HANG" + "-CHECK failed with", n)\n`;
    const dir = fixture({ 'spin.py': source });
    /** The hangs of one reduction, with the round each ran in. @param {string[]} flags */
    const hangs = async (flags) => {
      const trace = path.join(dir, 'trace.jsonl');
      const args = ['spin.py', '--err-msg', 'HANG-CHECK failed with 3', '-o', 'out.py', '--quiet'];
      const { data } = await reported(dir, [...args, '--trace', trace, ...flags]);
      let round = 1;
      let phase = 'fast';
      const hung = [];
      for (const r of traced(trace)) {
        if (r.phase === 'fast' && phase !== 'fast') round += 1;
        phase = r.phase;
        if (r.outcome === 'timeout') hung.push({ round, sites: r.sites });
      }
      assert.equal(data.stats.round, round);
      return { hung, result: fs.readFileSync(path.join(dir, 'out.py'), 'utf8') };
    };
    const remembered = await hangs([]);
    const forgotten = await hangs(['--no-hang-memory']);
    assert.equal(remembered.result, forgotten.result);
    assert.match(remembered.result, /n \+= 1/);
    const later = remembered.hung.filter((h) => h.round > 1);
    assert.ok(later.length > 0, 'a later round tries `n += 1` again');
    assert.deepEqual(
      later.filter((h) => h.sites > 1),
      [],
    );
    assert.ok(
      forgotten.hung.some((h) => h.round > 1 && h.sites > 1),
      JSON.stringify(forgotten.hung),
    );
  });

  test('once 8 candidates reproduced, the cap follows their run times; --no-learned-timeout keeps it', async () => {
    // The frozen sleep makes every run take about 30 ms, so the original's cap (10 ×
    // its run, plus 20 ms) is well above 3 × any reproducing candidate's run.
    const source = `import time
time.sleep(0.03)  # autodd: freeze


def scale(values, factor=2):
    return [v * factor for v in values]


class Box:
    def __init__(self, items):
        self.items = list(items)

    def total(self):
        return sum(self.items)


data = scale([1, 2, 3, 4])
box = Box(data)
label = "LEARN" + "-CHECK"
print(label, box.total(), len(data))
`;
    const dir = fixture({ 'learn.py': source });
    const trace = path.join(dir, 'trace.jsonl');
    const args = ['learn.py', '--err-msg', 'LEARN-CHECK', '-o', 'out.py', '--quiet'];
    const { data } = await reported(dir, [...args, '--trace', trace]);
    const found = traced(trace)
      .filter((r) => r.found)
      .map((r) => r.ms);
    assert.ok(found.length >= 8, `${found.length} candidates reproduced`);
    const first = data.firstCandidateTimeout * 1000;
    const originalMs = (first - 20) / 10;
    assert.ok(originalMs >= 30, `the original ran ${originalMs} ms`);
    const expected = Math.min(first, 3 * Math.max(...found.slice(-32)) + 20);
    assert.ok(expected < first, `${expected} ms`);
    // The trace's times are rounded to 0.1 ms.
    assert.ok(
      Math.abs(data.candidateTimeout * 1000 - expected) < 0.5,
      `${data.candidateTimeout} s, ${expected} ms`,
    );

    const kept = await reported(dir, [...args, '--no-learned-timeout']);
    assert.equal(kept.data.candidateTimeout, kept.data.firstCandidateTimeout);
  });

  test('--trace with -j 2: runs overlap, and runs gone stale show as cancelled', async () => {
    // Every run sleeps 30 ms, so two jobs always have runs going at once.
    const lines = Array.from({ length: 8 }, (_, i) => `v${i} = ${i}\n`).join('');
    const source = `import time\ntime.sleep(0.03)  # autodd: freeze\n${lines}print("TRACE" + "-J2", v3)\n`;
    const dir = fixture({ 'two.py': source });
    const trace = path.join(dir, 'trace.jsonl');
    const args = ['two.py', '--err-msg', 'TRACE-J2', '-o', 'out.py', '-j', '2', '--quiet', '--trace', trace];
    const { data } = await reported(dir, args);
    const runs = traced(trace);
    assert.equal(runs.filter((r) => r.counted).length, data.tried);
    assert.ok(
      runs.some((r) => !r.counted),
      'a run beside an accepted candidate went stale',
    );
    for (const r of runs.filter((r) => r.outcome === 'cancelled')) {
      assert.equal(r.found, false);
      assert.equal(r.counted, false);
    }
    const overlap = runs.some((a) =>
      runs.some((b) => a !== b && a.startMs <= b.startMs && b.startMs < a.startMs + a.ms),
    );
    assert.ok(overlap, 'two runs went at once');
    assert.equal(data.reproduced, true);
  });

  test('--no-adaptive-timeout keeps the full timeout', async () => {
    const dir = fixture({ 'ok.py': 'x = 1\nprint("PLAIN-" + "BUG", x)\n' });
    const args = ['ok.py', '--err-msg', 'PLAIN-BUG', '-o', 'out.py', '--timeout', '7'];
    const { data } = await reported(dir, [...args, '--no-adaptive-timeout', '--quiet']);
    assert.equal(data.candidateTimeout, 7);
  });

  test('candidates get half the RAM shared by the jobs, or --memory-limit; none for a failure about memory', async () => {
    const dir = fixture({
      'ok.py': 'x = 1\nprint("PLAIN-" + "BUG", x)\n',
      'mem.py': 'x = 1\nprint("MemoryError: PLAIN", x)\n',
    });
    /** The MiB each candidate could allocate, as the report says. @param {string[]} args */
    const limit = async (...args) =>
      (await reported(dir, [...args, '-o', 'out.py', '--quiet'])).data.memoryLimitMib;
    const plain = ['ok.py', '--err-msg', 'PLAIN-BUG'];
    const half = os.totalmem() / 2 / 1024 / 1024;
    if (process.platform === 'linux') {
      assert.ok(Math.abs((await limit(...plain, '-j', '2')) - Math.max(2048, half / 2)) < 1);
      assert.equal(await limit(...plain, '--memory-limit', '300'), 300);
    }
    assert.equal(await limit(...plain, '--no-memory-limit'), null);
    assert.equal(await limit('mem.py', '--err-msg', 'MemoryError: PLAIN'), null);
    assert.equal(await limit(...plain, '--backend', 'subproc'), null);
  });

  test('candidates are forked, and with one job compiled, ahead where each job has two CPUs, not with --no-prefork', async () => {
    const dir = fixture({ 'ok.py': 'x = 1\ny = 2\nz = y\nprint("PLAIN-" + "BUG", x)\n' });
    /** Whether the report says candidates were forked ahead, and how many ran code compiled ahead. @param {string[]} args */
    const ahead = async (...args) => {
      const { run, data } = await reported(dir, ['ok.py', '--err-msg', 'PLAIN-BUG', '-o', 'out.py', ...args]);
      assert.match(run.stderr, /reproduces when run on its own/);
      return { prefork: data.prefork, compiled: data.compiledAhead > 0 };
    };
    const cpus = os.availableParallelism();
    assert.deepEqual(await ahead('-j', '1'), { prefork: cpus >= 2, compiled: cpus >= 2 });
    // With two jobs, which one runs the next candidate is not known.
    assert.deepEqual(await ahead('-j', '2'), { prefork: cpus >= 4, compiled: false });
    assert.deepEqual(await ahead('--no-prefork'), { prefork: false, compiled: false });
    assert.deepEqual(await ahead('--backend', 'subproc'), { prefork: false, compiled: false });
  });

  test('with -j 2 the report names the CPUs each job kept to, none with --no-cpu-affinity', async () => {
    const dir = fixture({ 'ok.py': 'x = 1\ny = 2\nprint("PLAIN-" + "BUG", x)\n' });
    /**
     * The report's CPUs per job.
     * @param {string[]} args
     * @returns {Promise<(number[] | null)[]>}
     */
    const cpus = async (...args) => {
      const { run, data } = await reported(dir, [
        'ok.py',
        '--err-msg',
        'PLAIN-BUG',
        '-o',
        'out.py',
        '-j',
        '2',
        ...args,
      ]);
      assert.match(run.stderr, /reproduces when run on its own/);
      return data.cpus;
    };
    const usable = os.availableParallelism();
    const [first, second] = await cpus();
    if (usable >= 2) {
      // Two disjoint, non-empty shares of the CPUs.
      assert.ok(first && second, `shares ${first} and ${second}`);
      assert.ok(first.length > 0 && second.length > 0, `shares ${first} and ${second}`);
      assert.ok(!first.some((cpu) => second.includes(cpu)), `shares ${first} and ${second}`);
    } else {
      assert.deepEqual([first, second], [null, null]);
    }
    assert.deepEqual(await cpus('--no-cpu-affinity'), [null, null]);
  });

  test('--canonicalize-every-round, --fresh-phases, --uniform-priors and --no-hang-memory reach the engine', async () => {
    const dir = fixture({ 'prog.py': TRAPS.replace(/ctypes\.string_at\(0\)/, 'pass') });
    const report = path.join(dir, 'report.json');
    const args = ['prog.py', '--err-msg', 'value check failed', '-o', 'out.py', '--timeout', '5'];
    const switches = [
      '--canonicalize-every-round',
      '--fresh-phases',
      '--uniform-priors',
      '--fixed-groups',
      '--no-hang-memory',
    ];
    const run = await runCli([...args, ...switches, '--report', report, '--quiet'], { cwd: dir });
    assert.equal(run.code, 0, run.stderr);
    const data = JSON.parse(fs.readFileSync(report, 'utf8'));
    assert.equal(data.engine.canonicalizeEveryRound, true);
    assert.equal(data.engine.freshPhases, true);
    assert.equal(data.engine.uniformPriors, true);
    assert.equal(data.engine.fixedGroups, true);
    assert.equal(data.engine.forgetHangs, true);
    assert.equal(data.reproduced, true);
  });

  test('--reference-rewrites uses only the reference rewrites', async () => {
    const dir = fixture({ 'prog.py': TRAPS.replace(/ctypes\.string_at\(0\)/, 'pass') });
    const report = path.join(dir, 'report.json');
    const args = ['prog.py', '--err-msg', 'value check failed', '-o', 'out.py', '--timeout', '5'];
    const run = await runCli([...args, '--reference-rewrites', '--report', report, '--quiet'], { cwd: dir });
    assert.equal(run.code, 0, run.stderr);
    const data = JSON.parse(fs.readFileSync(report, 'utf8'));
    assert.deepEqual(data.engine, {
      referenceOnly: true,
      forget: false,
      canonicalizeEveryRound: false,
      freshPhases: false,
      uniformPriors: false,
      fixedGroups: false,
      forgetHangs: false,
    });
    const reference = new Set([
      'if-remover-1',
      'if-remover-2',
      'if-remover-3',
      'for-bind-0',
      'stmt-remover',
      'with-bind-0',
      'attach-full-func-args',
      'assign-rhs-1',
      'call-fwd-arg1',
      'binop-fwd-arg-left',
      'binop-fwd-arg-right',
      'func-arg-remover',
      'general-expr-remover',
      'general-keyword-remover',
      'int-reduce-2',
    ]);
    assert.ok(data.steps.length > 0);
    for (const step of data.steps) for (const r of step.rewrites) assert.ok(reference.has(r), r);
  });
});
