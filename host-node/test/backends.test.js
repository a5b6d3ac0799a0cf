// The backends on their own, against real python3: what makes a run interesting,
// timeouts, crashes, isolation, cancellation. No wasm engine needed.

import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { Capture, TAIL_BYTES, processStart } from '../src/backends/capture.js';
import { createBackend } from '../src/backends/index.js';
import { PYTHON_DIR, Workspace } from '../src/python.js';
import { BACKENDS, canCollapse, fixture, isRunning, processesWithMark, waitFor } from './helpers.js';

describe(
  'the reaper a hard exit leaves for the launchers',
  { skip: process.platform !== 'linux' && 'Linux only' },
  () => {
    const REAPER = fileURLToPath(new URL('../src/backends/reaper.js', import.meta.url));

    test('kills a group still there after the grace, unless its leader is a later process', async () => {
      const [ours, other] = [0, 1].map(() => spawn('sleep', ['60'], { detached: true, stdio: 'ignore' }));
      try {
        const ended = new Promise((resolve) => ours.once('exit', (_, signal) => resolve(signal)));
        const start = processStart(/** @type {number} */ (ours.pid));
        assert.notEqual(start, null);
        // The second's start is not the one recorded: its id is another process's now.
        const asked = [
          { pgid: ours.pid, start },
          { pgid: other.pid, start: String(Number(processStart(/** @type {number} */ (other.pid))) - 1) },
        ];
        const began = performance.now();
        execFileSync(process.execPath, [REAPER, '300', JSON.stringify(asked)]);
        assert.ok(performance.now() - began >= 300, 'it waited for the grace');
        assert.equal(await ended, 'SIGKILL');
        // Not yet reaped by this process, a killed one would show as a zombie.
        assert.ok(isRunning(other.pid), 'the later process was left alone');
        assert.equal(other.exitCode ?? other.signalCode, null, 'the later process was left alone');
      } finally {
        ours.kill('SIGKILL');
        other.kill('SIGKILL');
      }
    });
  },
);

describe('Capture', () => {
  test('finds a needle split across chunks', () => {
    const c = new Capture(Buffer.from('shape check failed'));
    c.feed(Buffer.from('xx shape ch'));
    assert.equal(c.found, false);
    c.feed(Buffer.from('eck fail'));
    c.feed(Buffer.from('ed yy'));
    assert.equal(c.found, true);
  });

  test('keeps only a bounded tail', () => {
    const c = new Capture(Buffer.from('needle'));
    for (let i = 0; i < 1000; i++) c.feed(Buffer.alloc(1000, 'a'));
    assert.equal(c.tail.length, TAIL_BYTES);
    assert.ok(c.carry.length <= 5);
    assert.equal(c.found, false);
  });
});

/** The live (not zombie) children of process `pid`. @param {number} pid */
const children = (pid) =>
  fs.readdirSync('/proc').flatMap((entry) => {
    if (!/^\d+$/.test(entry)) return [];
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'latin1');
      const [state, ppid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      return Number(ppid) === pid && state !== 'Z' ? [Number(entry)] : [];
    } catch {
      return []; // gone while we looked
    }
  });

/**
 * The backends, and the runner forking ahead.
 * @type {{ name: import('../src/backends/index.js').BackendName, extra: { prefork?: boolean } }[]}
 */
const VARIANTS = [
  ...BACKENDS.map((name) => ({ name, extra: {} })),
  { name: 'runner', extra: { prefork: true } },
];

for (const { name, extra } of VARIANTS) {
  const label = `${name} backend${extra.prefork ? ', forking ahead' : ''}`;
  describe(label, () => {
    const MSG = 'BOOM-42';
    /** @type {Workspace} */
    let workspace;
    /** @type {import('../src/backends/index.js').Backend} */
    let backend;
    const warnings = /** @type {string[]} */ ([]);

    before(async () => {
      workspace = await Workspace.create({
        python: 'python3',
        jobs: 2,
        cwd: fixture({ 'data.txt': 'cwd-ok' }),
      });
      backend = createBackend(name, {
        workspace,
        needle: MSG,
        timeoutMs: 1500,
        jobs: 2,
        preload: ['json', 'no_such_module_for_autodd'],
        onWarning: (m) => warnings.push(m),
        ...extra,
      });
    });
    after(async () => {
      await backend.close();
      workspace.close();
    });

    /** @param {string} source */
    const run = (source) => backend.run(source);

    test('MSG on stdout or stderr, any exit status', async () => {
      assert.equal((await run(`print("${MSG}")`)).found, true);
      const r = await run(`import sys\nprint("${MSG}", file=sys.stderr)\nsys.exit(3)`);
      assert.equal(r.found, true);
      assert.equal(r.exitCode, 3);
      assert.equal((await run('print("boom-42")')).found, false, 'matching is case-sensitive');
    });

    test('an uncaught exception prints a normal traceback', async () => {
      const r = await run(`def f():\n    raise ValueError("${MSG}")\nf()\n`);
      assert.equal(r.found, true);
      assert.equal(r.exitCode, 1);
      assert.match(
        r.stderrTail,
        /^Traceback \(most recent call last\):\n {2}File "[^"]+", line 3, in <module>/,
      );
      assert.doesNotMatch(r.stderrTail, /autodd_worker|autodd_runner|runpy/);
    });

    test('MSG only in a source line the traceback quotes is not found; the type is kept', async () => {
      const echo = await run(`def check():\n    assert k_a == 1, f"${MSG}: {1}"\ncheck()\n`);
      assert.equal(echo.found, false, echo.stderrTail);
      assert.equal(echo.foundAnywhere, true);
      assert.equal(echo.exception, 'NameError');
      assert.equal(echo.msgLine, null);
      const real = await run(`def check(a):\n    assert a == 1, f"${MSG}: {a}"\ncheck(2)\n`);
      assert.equal(real.found, true);
      assert.equal(real.exception, 'AssertionError');
      assert.equal(real.msgLine, `AssertionError: ${MSG}: 2`);
      const printed = await run(`print("${MSG}")`);
      assert.deepEqual([printed.found, printed.exception, printed.msgLine], [true, null, MSG]);
    });

    test('runs as __main__ in the invoking directory', async () => {
      const r = await run(`if __name__ == "__main__":\n    print(open("data.txt").read(), "${MSG}")`);
      assert.equal(r.found, true, r.stderrTail);
      assert.match(r.stdoutTail, /cwd-ok/);
    });

    test('sees text written with os.write(2, ...)', async () => {
      const r = await run(`import os\nos.write(2, b"${MSG}")`);
      assert.equal(r.found, true);
    });

    test('an infinite loop times out, and the next run works', async () => {
      const r = await run(`print("${MSG}", flush=True)\nwhile True:\n    pass`);
      assert.equal(r.outcome, 'timeout');
      assert.equal(r.found, false, 'a timeout is never interesting');
      assert.equal((await run(`print("${MSG}")`)).found, true);
    });

    test('a candidate that prints far more than a pipe holds is read to the end', async () => {
      // 32 MB, with MSG last: the output is read at intervals at first, then as it comes.
      const r = await run(
        `import sys\nfor _ in range(32):\n    sys.stdout.write("x" * (1 << 20))\nprint("${MSG}")`,
      );
      assert.equal(r.outcome, 'exited');
      assert.equal(r.found, true);
    });

    test('output written before a candidate sleeps and after it wakes is all read', async () => {
      const r = await run(
        `import sys, time\nprint("${MSG.slice(0, 3)}", end="", flush=True)\ntime.sleep(0.05)\nprint("${MSG.slice(3)}")`,
      );
      assert.equal(r.found, true, r.stdoutTail);
    });

    test('endless printing is cut off by the timeout with bounded output', async () => {
      const r = await run('while True:\n    print("x" * 10000)');
      assert.equal(r.outcome, 'timeout');
      assert.ok(r.stdoutTail.length <= 4096);
    });

    test('a candidate that exits abruptly or segfaults does not stop the next', async () => {
      const exit = await run(`import os\nprint("${MSG}", flush=True)\nos._exit(7)`);
      assert.equal(exit.found, true);
      assert.equal(exit.exitCode, 7);
      const segv = await run('import ctypes\nctypes.string_at(0)');
      assert.equal(segv.outcome, 'signaled');
      assert.equal(segv.signal, 'SIGSEGV');
      assert.equal((await run(`print("${MSG}")`)).found, true);
    });

    test('a fork of the candidate that finishes first does not end the run', async () => {
      const r = await run(
        `import os, time\nif os.fork():\n    time.sleep(0.3)\n    print("${MSG}")\nelse:\n    print("fork done")`,
      );
      assert.equal(r.found, true, r.stdoutTail);
      assert.equal(r.exitCode, 0);
    });

    test('a candidate that kills its own process group does not stop the next', async () => {
      const r = await run('import os, signal\nos.killpg(0, signal.SIGKILL)');
      assert.equal(r.found, false);
      assert.equal((await run(`print("${MSG}")`)).found, true);
    });

    test('state set by one candidate is not seen by the next', async () => {
      await run(
        'import os, json\nos.environ["AUTODD_LEAK"] = "1"\njson.LEAK = 1\nimport sys\nsys.modules["leak_mod"] = json',
      );
      const r = await run(
        `import os, sys, json\nif "AUTODD_LEAK" not in os.environ and not hasattr(json, "LEAK") and "leak_mod" not in sys.modules:\n    print("${MSG}")`,
      );
      assert.equal(r.found, true);
    });

    test('__freeze__ imports from autodd and tilelang.autodd', async () => {
      const r = await run(
        [
          'from autodd import __freeze__',
          'from tilelang.autodd import __freeze__ as f2',
          'with __freeze__:',
          '    x = f2(40) + __freeze__(2)',
          `print("${MSG}", x)`,
        ].join('\n'),
      );
      assert.equal(r.found, true, r.stderrTail);
      assert.match(r.stdoutTail, /BOOM-42 42/);
    });

    test('aborting cancels a run and kills what it started', async () => {
      const controller = new AbortController();
      const pending = backend.run(
        `import subprocess, sys\nsubprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])\nprint("${MSG}", flush=True)\nwhile True:\n    pass`,
        { signal: controller.signal },
      );
      setTimeout(() => controller.abort(), 300);
      const r = await pending;
      assert.equal(r.outcome, 'cancelled');
      assert.equal(r.found, false);
    });

    test('processes a candidate leaves behind are killed', async () => {
      const mark = `leftover-${name}${extra.prefork ? '-prefork' : ''}-${process.pid}`;
      const r = await run(
        `import os, subprocess, sys\nenv = dict(os.environ, AUTODD_TEST_MARK="${mark}")\nsubprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"], env=env)\nprint("${MSG}")`,
      );
      assert.equal(r.found, true);
      await new Promise((resolve) => setTimeout(resolve, 200));
      assert.deepEqual(processesWithMark(mark), []);
    });

    test('runs two candidates at once', async () => {
      // Each says when it started and when it stopped (wall clock): the spans overlap.
      const timed = `import time\nstart = time.time()\ntime.sleep(0.3)\nprint("${MSG}", start, time.time())`;
      const [a, b] = await Promise.all([run(timed), run(timed)]);
      assert.ok(a.found && b.found);
      const span = (/** @type {{ stdoutTail: string }} */ r) =>
        r.stdoutTail.trim().split(' ').slice(1).map(Number);
      const [[a0, a1], [b0, b1]] = [span(a), span(b)];
      assert.ok(a0 < b1 && b0 < a1, `the two runs overlapped: ${[a0, a1]} ${[b0, b1]}`);
    });

    if (name === 'runner') {
      test('a worker that dies under a candidate is replaced, the candidate killed and run again', async () => {
        const runner = /** @type {import('../src/backends/runner.js').RunnerBackend} */ (backend);
        await runner.prestart();
        // Until the flag file is there, the candidate becomes a marked sleeper (same pid,
        // so same process group); run again once it is, it reproduces.
        const flag = path.join(fixture({}), 'worker-killed');
        const mark = `orphan${extra.prefork ? '-prefork' : ''}-${process.pid}`;
        const pending = run(
          `import os, sys
if not os.path.exists(${JSON.stringify(flag)}):
    os.execve(sys.executable, [sys.executable, "-c", "import time; time.sleep(30)"], dict(os.environ, AUTODD_TEST_MARK="${mark}"))
print("${MSG}")
`,
        );
        await new Promise((resolve) => setTimeout(resolve, 300));
        assert.equal(processesWithMark(mark).length, 1, 'the candidate runs');
        fs.writeFileSync(flag, '');
        const restarts = runner.restarts;
        for (const worker of runner.workers)
          if (worker?.current) process.kill(Number(worker.proc.pid), 'SIGKILL');
        const r = await pending;
        assert.equal(r.found, true, 'run again on a new worker');
        assert.equal(runner.restarts, restarts + 1);
        await new Promise((resolve) => setTimeout(resolve, 200));
        assert.deepEqual(processesWithMark(mark), [], 'the host killed the candidate of the dead worker');
      });

      test('a candidate sees only its own PID namespace: no worker to kill, and a zygote it cannot kill', async (t) => {
        if (!workspace.isolated) return t.skip(`unisolated here: ${workspace.sandboxProblem}`);
        // Its ancestors as far as it can see them, then SIGKILL to the first of its
        // namespace (the zygote), which the kernel keeps from it.
        const source = `import os, signal
pid, seen = os.getpid(), []
while pid > 1:
    with open(f"/proc/{pid}/stat") as f:
        pid = int(f.read().rsplit(")", 1)[1].split()[1])
    with open(f"/proc/{pid}/cmdline", "rb") as f:
        seen.append(f.read().split(b"\\0")[0].decode())
os.kill(1, signal.SIGKILL)
print("${MSG}", os.getppid(), len(seen))
`;
        /** Runs `source` twice: each time forked by the first process of its namespace, with nothing above it in sight. */
        const twiceInOwnNamespace = async (/** @type {string} */ why) => {
          for (let i = 0; i < 2; i++) {
            const r = await run(source);
            assert.equal(r.found, true, `${r.outcome} ${r.error} ${r.stderrTail}`);
            const [parent, ancestors] = r.stdoutTail.trim().split(' ').slice(1).map(Number);
            assert.deepEqual([parent, ancestors], [1, 1], why);
          }
        };
        await twiceInOwnNamespace('forked by the first process of its namespace, nothing above it in sight');
        const [a, b] = await Promise.all([run(`print("${MSG}")`), run(`print("${MSG}")`)]);
        assert.ok(a.found && b.found, 'both jobs still run candidates');

        // Killed from outside, the zygote is started again, in a namespace of its own.
        const runner = /** @type {import('../src/backends/runner.js').RunnerBackend} */ (backend);
        for (const worker of runner.workers) {
          for (const between of children(Number(worker?.proc.pid))) {
            for (const zygote of children(between)) process.kill(zygote, 'SIGKILL');
          }
        }
        await twiceInOwnNamespace('a new zygote, as the first process of its own namespace');
      });

      test('a failing preload import is skipped with a warning', () => {
        assert.ok(
          warnings.some((w) => w.includes('no_such_module_for_autodd')),
          warnings.join('\n'),
        );
      });
    }
  });
}

/**
 * A runner backend for the tests of a `describe` block: started before them, closed
 * after them.
 * @param {string} needle
 * @param {{ jobs?: number, timeoutMs?: number, cpuAffinity?: boolean, memoryLimit?: number, prefork?: boolean, sandbox?: boolean }} [options]
 *   default 1 job, 4 s, CPU shares on, no memory limit, no forking ahead, isolated
 * @returns {{ backend: import('../src/backends/runner.js').RunnerBackend }}
 */
function ownRunner(
  needle,
  { jobs = 1, timeoutMs = 4000, cpuAffinity = true, memoryLimit, prefork, sandbox } = {},
) {
  const own = /** @type {{ backend: import('../src/backends/runner.js').RunnerBackend }} */ ({});
  /** @type {Workspace} */
  let workspace;
  before(async () => {
    workspace = await Workspace.create({ python: 'python3', jobs, sandbox });
    own.backend = /** @type {import('../src/backends/runner.js').RunnerBackend} */ (
      createBackend('runner', { workspace, needle, timeoutMs, jobs, cpuAffinity, memoryLimit, prefork })
    );
  });
  after(async () => {
    await own.backend.close();
    workspace.close();
  });
  return own;
}

describe(
  'runner backend, unisolated: a candidate that kills its worker',
  { skip: process.platform !== 'linux' && 'Linux only' },
  () => {
    const MSG = 'BOOM-41';
    const own = ownRunner(MSG, { jobs: 2, sandbox: false });

    test('it is a crash each time, and no job is dropped', async () => {
      const runner = own.backend;
      // Up its ancestors to the worker (the oldest with the worker's command line, above
      // the zygote forked from it), which it kills: every worker started again too.
      const r = await runner.run(`import os, signal
pid, worker = os.getpid(), None
while pid > 1:
    with open(f"/proc/{pid}/stat") as f:
        pid = int(f.read().rsplit(")", 1)[1].split()[1])
    with open(f"/proc/{pid}/cmdline", "rb") as f:
        if b"autodd_worker" in f.read():
            worker = pid
os.kill(worker, signal.SIGKILL)
`);
      assert.equal(r.outcome, 'crashed');
      assert.match(r.error ?? '', /^the Python worker died/);
      assert.equal(runner.dropped.size, 0, 'the fault was the candidate, not the job');
      const [a, b] = await Promise.all([runner.run(`print("${MSG}")`), runner.run(`print("${MSG}")`)]);
      assert.ok(a.found && b.found, 'both jobs still run candidates');
    });
  },
);

// Unisolated (isolated, the zygote is its own PID namespace's first process, which no
// candidate can kill): the pids a candidate reports are this process's.
describe(
  'runner backend, unisolated: the zygote',
  { skip: process.platform !== 'linux' && 'Linux only' },
  () => {
    const MSG = 'BOOM-44';
    const own = ownRunner(MSG, { sandbox: false });

    test('candidates are forked by a zygote, not by the worker; if it dies the worker forks them', async () => {
      // The parent of a candidate, and that process's parent.
      const parents = `import os
def parent(pid):
    with open(f"/proc/{pid}/stat") as f:
        return int(f.read().rsplit(")", 1)[1].split()[1])
print("${MSG}", os.getppid(), parent(os.getppid()))
`;
      const chain = async () => {
        const r = await own.backend.run(parents);
        assert.equal(r.found, true, r.stderrTail);
        const [forker, above] = r.stdoutTail.trim().split(' ').slice(1).map(Number);
        return { forker, above };
      };
      const first = await chain();
      const worker = /** @type {NonNullable<(typeof own.backend.workers)[0]>} */ (own.backend.workers[0]);
      assert.equal(first.above, worker.proc.pid, 'the zygote is a child of the worker');
      assert.deepEqual(await chain(), first, 'the same zygote forks every candidate');

      // A child that exits at once may be reaped (and reported) before the zygote has
      // even said its pid; its status must not be lost.
      for (let i = 0; i < 40; i++) {
        const quick = await own.backend.run('import os\nos._exit(3)');
        assert.equal(quick.outcome, 'exited', quick.error);
        assert.equal(quick.exitCode, 3);
      }
      // Still the zygote: the candidate below must not kill the worker instead.
      assert.deepEqual(await chain(), first, 'the zygote outlives quick candidates');

      // A candidate that kills the zygote and then dies of a signal: its status went
      // with the zygote, yet the run ends, as killed.
      const r = await own.backend.run(
        'import os, signal, time\nos.kill(os.getppid(), signal.SIGKILL)\ntime.sleep(0.2)\nos.kill(os.getpid(), signal.SIGSEGV)',
      );
      assert.equal(r.found, false);
      assert.equal(r.outcome, 'signaled', r.error);
      const after = await chain();
      assert.equal(after.forker, worker.proc.pid, 'the worker forks candidates itself now');
      assert.equal((await own.backend.run(`print("${MSG}")`)).found, true);
    });
  },
);

describe(
  'runner backend, unisolated: forking ahead',
  { skip: process.platform !== 'linux' && 'Linux only' },
  () => {
    const MSG = 'BOOM-48';
    const own = ownRunner(MSG, { prefork: true, sandbox: false });
    const whoami = `import os\nprint("${MSG}", os.getpid(), os.getppid())`;
    /** The pid of the candidate that ran `whoami`, and of its parent. */
    const ran = async () => {
      const r = await own.backend.run(whoami);
      assert.equal(r.found, true, `${r.outcome} ${r.error} ${r.stderrTail}`);
      return r.stdoutTail.trim().split(' ').slice(1).map(Number);
    };
    /**
     * The zygote's one waiting child, once it is there and the candidate that ran last has gone: that
     * one may still be exiting when its result arrives, before or after the spare is forked.
     * @param {number} zygote @param {number} last
     */
    const spareOf = async (zygote, last) => {
      const settled = () => {
        const now = children(zygote);
        return now.length === 1 && now[0] !== last;
      };
      // The assertion below says what was there instead.
      await waitFor(settled, 2000).catch(() => {});
      const waiting = children(zygote);
      assert.equal(waiting.length, 1, `the zygote's children: ${waiting}`);
      assert.notEqual(waiting[0], last, 'the candidate that ran is gone');
      return waiting[0];
    };

    test("the next candidate's process is forked before it is asked for, and runs it", async () => {
      const [first, zygote] = await ran();
      const spare = await spareOf(zygote, first);
      assert.deepEqual(await ran(), [spare, zygote], 'the process forked ahead ran the candidate');
    });

    test('a process forked ahead that died is replaced when a candidate is due', async () => {
      const [last, zygote] = await ran();
      const spare = await spareOf(zygote, last);
      process.kill(spare, 'SIGKILL');
      await waitFor(() => !children(zygote).includes(spare), 2000).catch(() => {});
      assert.ok(!children(zygote).includes(spare), 'the process forked ahead is gone');
      const [pid, parent] = await ran();
      assert.equal(parent, zygote, 'still the zygote');
      assert.notEqual(pid, spare);
      assert.equal((await own.backend.run('import os\nos._exit(3)')).exitCode, 3);
    });

    test('the next candidate is compiled ahead when named, and that code runs only for that very source', async () => {
      const say = (/** @type {string} */ what) => `print("${MSG}", "${what}")\n`;
      await ran(); // a process is forked ahead only once a candidate has run
      own.backend.prepare(say('A'));
      const a = await own.backend.run(say('A'));
      assert.equal(a.stdoutTail.trim(), `${MSG} A`);
      assert.equal(a.compiledAhead, true);
      // A stale guess: the file holds another program, which is compiled as usual.
      own.backend.prepare(say('A'));
      const b = await own.backend.run(say('B'));
      assert.equal(b.stdoutTail.trim(), `${MSG} B`);
      assert.equal(b.compiledAhead, undefined);
      // The latest guess counts.
      own.backend.prepare(say('A'));
      own.backend.prepare(say('C'));
      const c = await own.backend.run(say('C'));
      assert.equal(c.stdoutTail.trim(), `${MSG} C`);
      assert.equal(c.compiledAhead, true);
    });

    test('code compiled ahead shows its lines in a traceback; a program that warns as it compiles is compiled in its run', async () => {
      await ran();
      const failing = `x = 1\nraise ValueError("${MSG} " + str(x))\n`;
      own.backend.prepare(failing);
      const r = await own.backend.run(failing);
      assert.equal(r.compiledAhead, true);
      assert.match(r.stderrTail, /line 2, in <module>\n {4}raise ValueError/);
      // The SyntaxWarning goes to the candidate's own stderr, where the needle may be.
      const warns = `x = 1\nif x is 1:\n    print("${MSG}")\n`;
      own.backend.prepare(warns);
      const w = await own.backend.run(warns);
      assert.match(w.stderrTail, /SyntaxWarning: "is" with a literal/);
      assert.equal(w.found, true);
      assert.equal(w.compiledAhead, undefined);
    });
  },
);

for (const prefork of [false, true]) {
  describe(
    `runner backend: finalizers at exit${prefork ? ', forking ahead' : ''}`,
    { skip: prefork && process.platform !== 'linux' && 'Linux only' },
    () => {
      const MSG = 'BOOM-45';
      // A preloaded module that holds an object with a finalizer, as torch holds ~150.
      const modules = fixture({
        'autodd_finalizer_probe.py':
          'import weakref\nclass Held:\n    pass\nheld = Held()\nweakref.finalize(held, print, "worker-finalizer-ran")\n',
      });
      /** @type {Workspace} */
      let workspace;
      /** @type {import('../src/backends/index.js').Backend} */
      let backend;
      before(async () => {
        const env = { ...process.env, PYTHONPATH: modules };
        workspace = await Workspace.create({ python: 'python3', jobs: 1, env });
        backend = createBackend('runner', {
          workspace,
          needle: MSG,
          timeoutMs: 4000,
          jobs: 1,
          prefork,
          preload: ['autodd_finalizer_probe'],
        });
      });
      after(async () => {
        await backend.close();
        workspace.close();
      });

      test("a candidate's own finalizers run at its exit; those of the worker's objects do not", async () => {
        const source = `import weakref, autodd_finalizer_probe
class Mine:
    pass
mine = Mine()
weakref.finalize(mine, print, "${MSG} own finalizer")
print("body done")
`;
        for (let i = 0; i < 2; i += 1) {
          const r = await backend.run(source);
          assert.equal(r.found, true, r.stdoutTail);
          assert.match(r.stdoutTail, /body done\nBOOM-45 own finalizer/);
          assert.doesNotMatch(r.stdoutTail, /worker-finalizer-ran/);
        }
      });
    },
  );
}

describe('runner backend, isolated, forking ahead: the next candidate process', () => {
  const MSG = 'BOOM-47';
  const own = ownRunner(MSG, { prefork: true });

  test('is out of reach of the candidate before it: no write through /proc/PID/root', async (t) => {
    const isolated = await Workspace.create({ python: 'python3', jobs: 1 });
    isolated.close();
    if (!isolated.isolated) return t.skip(`unisolated here: ${isolated.sandboxProblem}`);
    const marker = `/tmp/autodd-reach-${process.pid}`;
    // It writes the marker into every other process's view it can reach, and says
    // which (the one before it may be among them, exiting); the next candidate (the
    // process forked ahead while it ran) says its pid and whether it sees the marker.
    const writer = `import os, time
# The next one's process is forked as this one starts: wait for it (a higher pid).
deadline = time.monotonic() + 3
while time.monotonic() < deadline and max(int(p) for p in os.listdir("/proc") if p.isdigit()) <= os.getpid():
    time.sleep(0.01)
reached = []
for pid in os.listdir("/proc"):
    if pid.isdigit() and int(pid) != os.getpid():
        try:
            with open(f"/proc/{pid}/root${marker}", "w") as f:
                f.write("x")
            reached.append(pid)
        except OSError:
            pass
print("${MSG}", *reached)
`;
    const reader = `import os\nprint("${MSG}", os.getpid(), os.path.exists("${marker}"))`;
    await own.backend.run(`print("${MSG}")`); // the process of the next one is forked now
    for (let i = 0; i < 2; i++) {
      const wrote = await own.backend.run(writer);
      assert.equal(wrote.found, true, wrote.stderrTail);
      const reached = wrote.stdoutTail.trim().split(' ').slice(1);
      const read = await own.backend.run(reader);
      const [pid, seen] = read.stdoutTail.trim().split(' ').slice(1);
      assert.ok(!reached.includes(pid), `it reached the next one (${pid}): ${reached}`);
      assert.equal(seen, 'False', 'the next one sees nothing it left');
    }
  });
});

describe('runner backend, forking ahead: a candidate slow to be gone', () => {
  const MSG = 'BOOM-53';
  const own = ownRunner(MSG, { prefork: true, timeoutMs: 20_000 });

  test('what it started in a session of its own is gone before the next candidate', async () => {
    // A killed candidate holding a gigabyte takes tens of milliseconds to be gone (a
    // GPU context can take longer); until then the sleeper it started in a session of
    // its own is its child, not the zygote's. The next candidate looks for it.
    const mark = `autodd-slow-exit-${process.pid}`;
    const starter = `import ctypes, subprocess, sys
subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)", "${mark}"], start_new_session=True)
libc = ctypes.CDLL(None)
libc.malloc.restype = ctypes.c_void_p
ctypes.memset(libc.malloc(1 << 30), 1, 1 << 30)
print("${MSG}")
`;
    const looker = `import os, time
def strays():
    found = 0
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            try:
                with open(f"/proc/{pid}/cmdline", "rb") as f:
                    found += b"${mark}" in f.read()
            except OSError:
                pass
    return found
seen = 0
for _ in range(10):
    seen = max(seen, strays())
    time.sleep(0.01)
print("${MSG}", seen)
`;
    try {
      for (let i = 0; i < 3; i++) {
        const started = await own.backend.run(starter);
        assert.equal(started.found, true, started.stderrTail);
        const looked = await own.backend.run(looker);
        assert.equal(looked.stdoutTail.trim(), `${MSG} 0`, looked.stderrTail);
      }
    } finally {
      try {
        execFileSync('pkill', ['-KILL', '-f', mark], { stdio: 'ignore' });
      } catch {
        // none left: pkill says so with exit status 1
      }
    }
  });
});

for (const sandbox of [true, false]) {
  describe(`runner backend, forking ahead${sandbox ? '' : ', --no-sandbox'}: a candidate that signals the next one's process`, () => {
    const MSG = 'BOOM-51';
    const own = ownRunner(MSG, { prefork: true, sandbox });

    test('cannot make the next candidate fail or stall', async () => {
      // It signals the zygote's other children (the process forked ahead for the next
      // candidate) once there is one; that process, signalled before its candidate
      // came, must not be the one to run it.
      /** @param {string} sig */
      const signaller = (sig) => `import os, signal, time
def siblings():
    found = []
    for pid in os.listdir("/proc"):
        if pid.isdigit() and int(pid) != os.getpid():
            try:
                with open(f"/proc/{pid}/stat", "rb") as f:
                    stat = f.read()
            except OSError:
                continue
            if int(stat[stat.rindex(b")") + 2 :].split()[1]) == os.getppid():
                found.append(int(pid))
    return found
deadline = time.monotonic() + 3
while time.monotonic() < deadline and not siblings():
    time.sleep(0.01)
for pid in siblings():
    os.kill(pid, signal.${sig})
print("${MSG}")
`;
      // The next one says what a plain run's start would: no signal blocked or pending.
      const next = `import signal
print("${MSG}", sorted(signal.pthread_sigmask(signal.SIG_BLOCK, [])), sorted(signal.sigpending()))`;
      await own.backend.run(next);
      // A stopped process stalled its candidate to the time limit every time; a killed
      // one failed it about once in four; unisolated, one sent SIGINT ended without it.
      for (const sig of ['SIGSTOP', 'SIGINT', 'SIGTERM', ...Array(4).fill('SIGKILL')]) {
        const sent = await own.backend.run(signaller(sig));
        assert.equal(sent.found, true, sent.stderrTail);
        const after = await own.backend.run(next);
        assert.equal(after.found, true, `after ${sig}: ${JSON.stringify(after)}`);
        assert.equal(after.stdoutTail.trim(), `${MSG} [] []`, `after ${sig}`);
      }
    });
  });
}

describe('runner backend: a candidate that leaves its process group', () => {
  const MSG = 'BOOM-52';
  const own = ownRunner(MSG, { timeoutMs: 1000 });

  test('is killed at its time limit all the same', { timeout: 60_000 }, async () => {
    // It joins the group of a child of its own: killing its first group misses it.
    const leaver = `import os, time
child = os.fork()
if child == 0:
    os.setpgid(0, 0)
    time.sleep(60)
    os._exit(0)
os.setpgid(child, child)
os.setpgid(0, child)
print("${MSG}", flush=True)
while True:
    pass
`;
    const restarts = own.backend.restarts;
    const left = await own.backend.run(leaver);
    assert.equal(left.outcome, 'timeout', JSON.stringify(left));
    const next = await own.backend.run(`print("${MSG}")`);
    assert.equal(next.found, true, JSON.stringify(next));
    // The worker killed it (before, it waited on, and the host killed the worker).
    assert.equal(own.backend.restarts, restarts, 'the worker was started again');
  });
});

describe('runner backend: a large warm worker', { skip: !canCollapse() && 'no MADV_COLLAPSE here' }, () => {
  const MSG = 'BOOM-48';
  // A preloaded module with a 96 MiB heap in use, as torch leaves some 300 MiB; a
  // 64 MiB reserve of which one page in 512 is touched; 16 MiB only read (the zero
  // page); and 16 MiB written but marked MADV_NOHUGEPAGE, which the kernel refuses to
  // collapse (mapped last, so at lower addresses: tried first).
  const modules = fixture({
    'autodd_big_heap.py': `import ctypes, mmap, zlib
def anonymous(size):
    m = mmap.mmap(-1, size, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
    return m, ctypes.addressof(ctypes.c_char.from_buffer(m))
DATA = b"autodd" * (16 << 20)
CHECK = zlib.crc32(DATA)
RESERVE, RESERVE_AT = anonymous(64 << 20)
for offset in range(0, 64 << 20, 2 << 20):
    RESERVE[offset] = 1
READ, READ_AT = anonymous(16 << 20)
READ_SUM = sum(READ[offset] for offset in range(0, 16 << 20, 4096))
REFUSED, _ = anonymous(16 << 20)
REFUSED.madvise(mmap.MADV_NOHUGEPAGE)
REFUSED.write(b"r" * (16 << 20))
`,
  });
  /** @type {Workspace} */
  let workspace;
  /** @type {import('../src/backends/runner.js').RunnerBackend} */
  let big;
  /** @type {import('../src/backends/runner.js').RunnerBackend} */
  let small;
  before(async () => {
    const env = { ...process.env, PYTHONPATH: modules };
    workspace = await Workspace.create({ python: 'python3', jobs: 2, env });
    const options = { workspace, needle: MSG, timeoutMs: 8000, jobs: 1 };
    big = /** @type {import('../src/backends/runner.js').RunnerBackend} */ (
      createBackend('runner', { ...options, preload: ['autodd_big_heap'] })
    );
    small = /** @type {import('../src/backends/runner.js').RunnerBackend} */ (
      createBackend('runner', { ...options, preload: ['json'] })
    );
  });
  after(async () => {
    await big.close();
    await small.close();
    workspace.close();
  });

  test('candidates inherit a large heap in huge pages, unchanged; a sparse reserve stays sparse', async () => {
    const source = `import zlib, autodd_big_heap as big
def kib(field, start=None):
    """A field of /proc/self/smaps: summed, or of the mapping at start."""
    total, inside = 0, start is None
    for line in open("/proc/self/smaps"):
        head = line.split()[0]
        if "-" in head and not head.endswith(":"):
            inside = start is None or int(head.split("-")[0], 16) == start
        elif inside and head == field + ":":
            total += int(line.split()[1])
    return total
assert zlib.crc32(big.DATA) == big.CHECK
print("${MSG}", kib("AnonHugePages") >> 10, kib("Rss", big.RESERVE_AT) >> 10, kib("Rss", big.READ_AT) >> 10)
`;
    for (let i = 0; i < 2; i += 1) {
      const r = await big.run(source);
      assert.equal(r.found, true, r.stderrTail);
      const [huge, reserve, read] = r.stdoutTail.trim().split(' ').slice(1).map(Number);
      assert.ok(huge >= 90, `the candidate's heap in huge pages: ${huge} MiB`);
      assert.ok(reserve < 2, `the reserve in memory: ${reserve} MiB`);
      assert.ok(read < 2, `the mapping only read, in memory: ${read} MiB`);
    }
    const [collapsed] = big.hugePagesMib();
    assert.ok(collapsed !== undefined && collapsed >= 90 && collapsed < 110, `collapsed: ${collapsed} MiB`);
  });

  test('with hugePages false, a large heap keeps its pages', async () => {
    const off = createBackend('runner', {
      workspace,
      needle: MSG,
      timeoutMs: 8000,
      jobs: 1,
      preload: ['autodd_big_heap'],
      hugePages: false,
    });
    try {
      const r = await off.run(`import autodd_big_heap\nprint("${MSG}")\n`);
      assert.equal(r.found, true, r.stderrTail);
      assert.deepEqual(/** @type {any} */ (off).hugePagesMib(), [0]);
    } finally {
      await off.close();
    }
  });

  test('a worker holding little keeps its pages', async () => {
    const r = await small.run(`print("${MSG}")\n`);
    assert.equal(r.found, true, r.stderrTail);
    assert.deepEqual(small.hugePagesMib(), [0]);
  });
});

describe('runner backend: a warm-up program', () => {
  const MSG = 'BOOM-49';
  // A preloaded library that builds a table on first use, and says which process
  // built it.
  const modules = fixture({
    'autodd_lazy_lib.py': `import os
_table = None
def table():
    global _table
    if _table is None:
        _table = {"built by": os.getpid()}
    return _table
`,
  });
  const probe = `import os, autodd_lazy_lib
print("${MSG}", "inherited" if autodd_lazy_lib.table()["built by"] != os.getpid() else "built here")
`;
  /** @type {Workspace} */
  let workspace;
  /**
   * A backend preloading the library, with the warm-up program `source` if given.
   * @param {string} [source]
   * @param {string[]} [warnings] collects its warnings
   */
  const backendWith = (source, warnings = []) =>
    /** @type {import('../src/backends/runner.js').RunnerBackend} */ (
      createBackend('runner', {
        workspace,
        needle: MSG,
        timeoutMs: 8000,
        jobs: 1,
        preload: ['autodd_lazy_lib'],
        ...(source === undefined ? {} : { warmUp: { source, name: '/somewhere/warm.py' } }),
        onWarning: (message) => warnings.push(message),
      })
    );
  before(async () => {
    const env = { ...process.env, PYTHONPATH: modules };
    workspace = await Workspace.create({ python: 'python3', jobs: 1, env });
  });
  after(() => workspace.close());

  for (const [title, warmUp, expected] of [
    ['without one, every candidate builds the lazy state itself', undefined, 'built here'],
    [
      'candidates inherit what it built; its output is not theirs',
      'import autodd_lazy_lib, sys\nautodd_lazy_lib.table()\nprint("warm-up says hello")\nsys.stderr.write("and to stderr")\n',
      'inherited',
    ],
  ]) {
    test(title, async () => {
      const backend = backendWith(warmUp);
      try {
        for (let i = 0; i < 2; i += 1) {
          const r = await backend.run(probe);
          assert.equal(r.found, true, r.stderrTail);
          assert.equal(r.stdoutTail, `${MSG} ${expected}\n`);
          assert.equal(r.stderrTail, '');
        }
      } finally {
        await backend.close();
      }
    });
  }

  test('a warm-up that ends the worker is dropped with a warning naming it', async () => {
    /** @type {string[]} */
    const warnings = [];
    const backend = backendWith('import os\nos._exit(3)\n', warnings);
    try {
      const r = await backend.run(probe);
      assert.equal(r.stdoutTail, `${MSG} built here\n`, 'preloading stays on');
      assert.equal(warnings.length, 1, warnings.join('\n'));
      assert.match(
        warnings[0],
        /did not start with the warm-up program \/somewhere\/warm\.py .*going on without it/,
      );
    } finally {
      await backend.close();
    }
  });

  test('an exception stops it with one warning; what it did before stays done', async () => {
    /** @type {string[]} */
    const warnings = [];
    const backend = backendWith('import autodd_lazy_lib\nautodd_lazy_lib.table()\n1 / 0\n', warnings);
    try {
      for (let i = 0; i < 2; i += 1) {
        const r = await backend.run(probe);
        assert.equal(r.stdoutTail, `${MSG} inherited\n`);
      }
      assert.deepEqual(warnings, [
        'the warm-up program stopped with ZeroDivisionError: division by zero; candidates start with what it did before that',
      ]);
    } finally {
      await backend.close();
    }
  });
});

describe('runner backend: modules beside the program', () => {
  const MSG = 'BOOM-46';
  const dir = fixture({
    // What the program imports from its folder is what the worker compiles.
    'prog.py': 'import helper\nimport broken\n',
    'helper.py': 'VALUE = 1\ndef twice(x):\n    return 2 * x\n',
    'broken.py': 'def f(:\n    pass\n',
    'unrelated.py': 'X = 1\n',
  });
  /** @type {Workspace} */
  let workspace;
  /** @type {import('../src/backends/index.js').Backend} */
  let backend;
  before(async () => {
    workspace = await Workspace.create({
      python: 'python3',
      jobs: 1,
      sourcePath: path.join(dir, 'prog.py'),
      cwd: dir,
    });
    backend = createBackend('runner', { workspace, needle: MSG, timeoutMs: 4000, jobs: 1 });
  });
  after(async () => {
    await backend.close();
    workspace.close();
  });

  test('are compiled once, by the worker, and candidates import that code; nothing is written', async (t) => {
    if (!workspace.isolated) {
      t.skip('only isolated runs lose the cache they write');
      return;
    }
    const helper = path.join(/** @type {string} */ (workspace.programDir), 'helper.py');
    const source = `import importlib._bootstrap_external as e
import importlib.util
import helper
cache = e.SourceLoader.source_to_code.__globals__.get("cache", {})
print(sorted(cache))
loader = importlib.util.find_spec("helper").loader
print("same code:", loader.get_code("helper") is cache[${JSON.stringify(helper)}][1])
print("${MSG}", helper.twice(21))
`;
    for (let i = 0; i < 2; i += 1) {
      const r = await backend.run(source);
      assert.equal(r.found, true, r.stderrTail);
      // Not the program itself, nor a module that does not compile, nor one it does not import.
      assert.ok(r.stdoutTail.includes(`['${helper}']\nsame code: True\n${MSG} 42`), r.stdoutTail);
    }
    assert.equal(fs.existsSync(path.join(dir, '__pycache__')), false);
  });

  test('a module that a candidate changes is compiled again', async () => {
    const source = `import pathlib
pathlib.Path(__file__).with_name("helper.py").write_text("VALUE = 2\\n")
import helper
print("${MSG}", helper.VALUE)
`;
    const r = await backend.run(source);
    assert.match(r.stdoutTail, new RegExp(`${MSG} 2`), r.stderrTail);
    if (workspace.isolated) assert.match(fs.readFileSync(path.join(dir, 'helper.py'), 'utf8'), /VALUE = 1/);
  });

  test('a module that does not compile fails with the traceback of a plain run', async () => {
    fs.writeFileSync(path.join(dir, 'plain.py'), 'import broken\n');
    let plain = '';
    try {
      execFileSync('python3', ['-B', path.join(dir, 'plain.py')], { stdio: 'pipe' });
    } catch (err) {
      plain = String(/** @type {{ stderr: Buffer }} */ (err).stderr);
    }
    assert.match(plain, /SyntaxError/);
    const r = await backend.run('import broken\n');
    const ran = path.join(workspace.isolated ? dir : path.dirname(workspace.file(0)), 'prog.py');
    assert.equal(
      r.stderrTail,
      plain.replaceAll(path.join(dir, 'plain.py'), ran).replaceAll(dir, path.dirname(ran)),
    );
  });
});

describe('runner worker: a fork that fails for want of resources', () => {
  // The worker's own function, with a forker that fails as a full process table does:
  // `failures`, a Python list of errnos, one per failed attempt.
  const attempt = (/** @type {string} */ failures) =>
    execFileSync(
      'python3',
      [
        '-c',
        `import errno, sys
sys.path.insert(0, sys.argv[1])
import autodd_runner.forkers as w
failures = ${failures}
calls = []
class Forker:
    def spawn(self, *args):
        calls.append(args)
        if failures:
            raise OSError(failures.pop(0), "no")
        return 4242
try:
    print(w.spawn(Forker(), "p.py", 1, 2, 3, []), len(calls))
except OSError as exc:
    print(errno.errorcode[exc.errno], len(calls))`,
        PYTHON_DIR,
      ],
      { encoding: 'utf8' },
    ).trim();

  test('EAGAIN and ENOMEM are tried again; the fork that then works counts', () => {
    assert.equal(attempt('[errno.EAGAIN, errno.ENOMEM, errno.EAGAIN]'), '4242 4');
  });
  test('a shortage that lasts ends in the error; other errors end at once', () => {
    assert.equal(attempt('[errno.EAGAIN] * 9'), 'EAGAIN 5');
    assert.equal(attempt('[errno.EPERM]'), 'EPERM 1');
  });
});

describe('runner backend: quick runs and cancellations', () => {
  const MSG = 'BOOM-45';
  const own = ownRunner(MSG, { jobs: 2, timeoutMs: 2000 });
  test('every run ends with its own verdict, two streams at once, some cancelled', async () => {
    // A status lost on the way from the zygote to the worker would leave a run
    // waiting until the host gives up on its worker (outcome `timeout`).
    const programs = [
      `print("${MSG}")`,
      'import os\nos._exit(3)',
      'raise ValueError("x")',
      'print(sum(range(9999)))',
    ];
    let random = 12345;
    const next = () => (random = (random * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const stream = async (/** @type {number} */ k) => {
      for (let i = 0; i < 800; i++) {
        const controller = new AbortController();
        const pending = own.backend.run(programs[(i + k) % programs.length], { signal: controller.signal });
        const roll = next();
        if (roll < 0.2) controller.abort();
        else if (roll < 0.5) setTimeout(() => controller.abort(), next() * 4);
        const r = await pending;
        assert.ok(['exited', 'cancelled'].includes(r.outcome), `run ${i}: ${r.outcome}`);
      }
    };
    await Promise.all([stream(0), stream(1)]);
  });
});

describe('runner backend: CPU shares', { skip: process.platform !== 'linux' && 'Linux only' }, () => {
  const MSG = 'BOOM-46';
  const shared = ownRunner(MSG, { jobs: 2 });
  const free = ownRunner(MSG, { jobs: 2, cpuAffinity: false });
  const single = ownRunner(MSG);
  // Sleeps first, so that runs started together overlap and take both slots.
  const AFFINITY = `import os, time\ntime.sleep(0.2)\nprint("${MSG}", *sorted(os.sched_getaffinity(0)))`;
  /**
   * The CPUs a candidate may run on, for each of `count` candidates run at once.
   * @param {import('../src/backends/runner.js').RunnerBackend} backend
   * @param {number} count
   */
  const seen = async (backend, count) => {
    const runs = await Promise.all(Array.from({ length: count }, () => backend.run(AFFINITY)));
    return runs.map((r) => {
      assert.equal(r.found, true, r.stderrTail);
      return r.stdoutTail.trim().split(' ').slice(1).map(Number);
    });
  };
  const byFirst = (/** @type {number[][]} */ lists) => [...lists].sort((a, b) => a[0] - b[0]);

  test('with 2 jobs, each job and its candidates keep to their own part of the CPUs', async () => {
    const [all] = await seen(free.backend, 1);
    await shared.backend.prestart();
    const shares = shared.backend.cpuShares();
    if (all.length < 2) {
      assert.deepEqual(shares, [null, null], 'fewer CPUs than jobs: no shares');
      return;
    }
    const [a, b] = /** @type {number[][]} */ (shares);
    assert.ok(a.length > 0 && b.length > 0, JSON.stringify(shares));
    assert.deepEqual(
      [...a, ...b].sort((x, y) => x - y),
      all,
      'the shares are disjoint and together every CPU the host may use',
    );
    assert.deepEqual(
      byFirst(await seen(shared.backend, 2)),
      byFirst([a, b]),
      'candidates run in their share',
    );
  });

  test('with one job, or with cpuAffinity false, candidates may use every CPU', async () => {
    const [all] = await seen(free.backend, 1);
    assert.deepEqual(await seen(free.backend, 2), [all, all]);
    assert.deepEqual(free.backend.cpuShares(), [null, null]);
    assert.deepEqual(await seen(single.backend, 1), [all]);
    assert.deepEqual(single.backend.cpuShares(), [null]);
  });
});

describe('runner backend: memory limit', { skip: process.platform !== 'linux' && 'Linux only' }, () => {
  const MSG = 'BOOM-47';
  const MIB = 1024 * 1024;
  const limited = ownRunner(MSG, { memoryLimit: 64 * MIB, timeoutMs: 20000 });
  const unlimited = ownRunner(MSG);
  /** Allocates up to `mib` MiB a MiB at a time, then prints `done`. */
  const allocate = (/** @type {number} */ mib, /** @type {string} */ done) =>
    `chunks = []\nfor _ in range(${mib}):\n    chunks.append(bytearray(1 << 20))\nprint("${MSG}", "${done}")`;

  test('a candidate that allocates without end gets a MemoryError at the limit', async () => {
    // 2 GiB at most, so that a missing limit fails the test instead of the machine.
    const r = await limited.backend.run(allocate(2048, 'no limit'));
    assert.equal(r.outcome, 'exited', r.error);
    assert.equal(r.exitCode, 1);
    assert.match(r.stderrTail, /MemoryError/);
    assert.equal(r.found, false, r.stdoutTail);
  });

  test('the limit comes on top of what the worker holds', async () => {
    const r = await limited.backend.run(allocate(48, 'fits'));
    assert.equal(r.found, true, r.stderrTail);
    const limit = /** @type {number} */ (limited.backend.dataLimit());
    assert.ok(limit > 64 * MIB, `the candidates' RLIMIT_DATA is ${limit} bytes`);
    // What a candidate sees as its own limit is the one the worker reported.
    const seen = await limited.backend.run(
      `import resource\nprint("${MSG}", resource.getrlimit(resource.RLIMIT_DATA)[0])`,
    );
    assert.equal(Number(seen.stdoutTail.trim().split(' ')[1]), limit);
  });

  test('without a limit, candidates have none', async () => {
    const r = await unlimited.backend.run(allocate(100, 'fits'));
    assert.equal(r.found, true, r.stderrTail);
    assert.equal(unlimited.backend.dataLimit(), null);
  });
});

describe('runner backend: stuck candidates', { skip: process.platform !== 'linux' && 'reads /proc' }, () => {
  const MSG = 'BOOM-43';
  const own = ownRunner(MSG);
  before(() => own.backend.detectStuck(30));
  /** @param {string} source */
  const run = (source) => own.backend.run(source);

  test('an asyncio loop with nothing left to run is killed long before the time limit', async () => {
    const r = await run(
      `import asyncio\nasync def main():\n    print("${MSG}", flush=True)\n    await asyncio.Queue().get()\nasyncio.run(main())`,
    );
    assert.equal(r.outcome, 'stuck');
    assert.equal(r.found, false, 'a stuck run is never interesting');
    assert.ok(r.ms < 1000, `${r.ms} ms`);
  });

  test('so is a thread waiting on a lock nobody holds open', async () => {
    const r = await run('import threading\nthreading.Event().wait()');
    assert.equal(r.outcome, 'stuck');
  });

  test('sleeps, a thread that will set the event, and a working child are not stuck', async () => {
    const programs = [
      `import time\ntime.sleep(0.3)\nprint("${MSG}")`,
      `import threading, time\ne = threading.Event()\nthreading.Thread(target=lambda: (time.sleep(0.3), e.set())).start()\ne.wait()\nprint("${MSG}")`,
      `import os, select, time\nr, w = os.pipe()\nif os.fork() == 0:\n    time.sleep(0.3)\n    os.write(w, b"x")\n    os._exit(0)\nselect.select([r], [], [])\nprint("${MSG}")`,
    ];
    for (const program of programs) {
      const r = await run(program);
      assert.equal(r.outcome, 'exited', program);
      assert.equal(r.found, true, program);
    }
  });
});
