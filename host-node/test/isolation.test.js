// Candidates cannot touch the user's files: programs that delete, overwrite, chmod and
// escape their folder are reduced with both backends, and the folder (and its parent)
// must be byte-identical afterwards. Then: results that do not depend on what an
// earlier candidate left, the final check run as the user runs OUTPUT, and preloading
// that never changes what a candidate prints.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { Workspace } from '../src/python.js';
import {
  BACKENDS,
  EXAMPLE,
  HAVE_ENGINE,
  processesWithMark,
  runCli,
  runPython,
  tempDir,
  waitFor,
} from './helpers.js';

const skip = HAVE_ENGINE ? false : 'the wasm engine is not built (scripts/build-wasm.sh nodejs)';

/** Whether this machine lets a process isolate itself (user and mount namespaces). */
const isolation = await (async () => {
  const workspace = await Workspace.create({ python: 'python3', jobs: 1 });
  workspace.close();
  return workspace.isolated ? null : workspace.sandboxProblem;
})();
const skipIsolated = skip || (isolation ? `no isolation here: ${isolation}` : false);

/**
 * Every file and folder under `root`: its type, mode and content hash, by path.
 * @param {string} root
 * @returns {Record<string, string>}
 */
function snapshot(root) {
  /** @type {Record<string, string>} */
  const entries = {};
  const walk = (/** @type {string} */ dir) => {
    for (const name of fs.readdirSync(dir).sort()) {
      const full = path.join(dir, name);
      const stat = fs.lstatSync(full);
      const rel = path.relative(root, full);
      const mode = (stat.mode & 0o7777).toString(8);
      if (stat.isDirectory()) {
        entries[rel] = `dir ${mode}`;
        walk(full);
      } else {
        const hash = crypto.createHash('sha256').update(fs.readFileSync(full)).digest('hex');
        entries[rel] = `file ${mode} ${hash}`;
      }
    }
  };
  walk(root);
  return entries;
}

/**
 * A project folder inside a parent folder of its own: `parent/project/NAME`.
 * @param {Record<string, string>} files
 */
function project(files) {
  const parent = tempDir();
  const dir = path.join(parent, 'project');
  fs.mkdirSync(dir);
  for (const [name, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    fs.writeFileSync(path.join(dir, name), text);
  }
  fs.writeFileSync(path.join(parent, 'neighbour.txt'), 'not yours\n');
  return { parent, dir };
}

const DESTRUCTIVE = {
  // The issue's build script: a candidate that loses `run_name` removes the folder.
  'build.py': {
    msg: 'Expecting property name enclosed',
    source: `import os, shutil, json
out_root = "."
run_name = "build"
out_dir = os.path.join(out_root, run_name)
shutil.rmtree(out_dir, ignore_errors=True)
os.makedirs(out_dir)
cfg = os.path.join(out_dir, "cfg.json")
with open(cfg, "w") as f:
    f.write('{"k": 1,}')
with open(cfg) as f:
    json.load(f)
`,
  },
  // Destructive as it is: writes into the parent folder, overwrites a neighbour,
  // deletes itself, takes the folder's write permission away, and leaves a detached
  // child that writes after the run has ended.
  'wreck.py': {
    msg: 'cleanup finished badly',
    source: `import os, subprocess, sys
here = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(here, "..", "escaped.txt"), "w") as f:
    f.write("escaped")
with open(os.path.join(here, "data.csv"), "w") as f:
    f.write("overwritten")
subprocess.Popen(
    [sys.executable, "-c", "import time; time.sleep(0.3); open('late.txt', 'w').write('late')"],
    start_new_session=True,
)
os.remove(__file__)
os.chmod(here, 0o555)
raise RuntimeError("cleanup finished badly")
`,
  },
  // Removes a folder that was there before the run, files and all: an overlay must let
  // it (with user.* attributes; a kernel that refuses them gave EIO).
  'clean.py': {
    msg: 'stale build removed',
    source: `import os, shutil
shutil.rmtree("sub")
assert not os.path.exists("sub")
raise RuntimeError("stale build removed")
`,
  },
  // A bounded fork bomb: 40 processes that each write a file and sleep; with the
  // program's own limit they stop there, and all of them must die with the run.
  'forks.py': {
    msg: 'spawned too many workers',
    source: `import os, time
spawned = 0
for i in range(40):
    if os.fork() == 0:
        with open(f"worker-{i}.txt", "w") as f:
            f.write(str(i))
        time.sleep(30)
        os._exit(0)
    spawned += 1
raise RuntimeError(f"spawned too many workers: {spawned}")
`,
  },
};

describe('candidates cannot touch the user files', { skip: skipIsolated }, () => {
  for (const [name, program] of Object.entries(DESTRUCTIVE)) {
    for (const backend of BACKENDS) {
      for (const jobs of ['1', '2']) {
        test(`${name}, ${backend}, -j ${jobs}`, async () => {
          const { parent, dir } = project({
            [name]: program.source,
            'data.csv': 'a,b\n1,2\n',
            'sub/keep.txt': 'k\n',
          });
          const before = snapshot(parent);
          const out = path.join(tempDir(), 'min.py');
          const r = await runCli(
            [name, '--err-msg', program.msg, '-o', out, '--backend', backend, '-j', jobs],
            {
              cwd: dir,
            },
          );
          assert.equal(r.code, 0, r.stderr);
          assert.match(r.stderr, /final check: .* \(isolated\)/);
          // The detached child of the original would write half a second in.
          await new Promise((resolve) => setTimeout(resolve, 500));
          assert.deepEqual(snapshot(parent), before, r.stderr);
          await waitFor(() => processesWithMark(r.mark).length === 0, 3000).catch(() => {});
          assert.deepEqual(processesWithMark(r.mark), [], 'every process a run started is gone');
        });
      }
    }
  }

  test('a program its owner may not write (chmod 444, in a folder of 555) is reduced, and left as it was', async () => {
    const { dir } = project({ 'ro.py': 'import os\nx = [1, 2]\nraise ValueError("boom sig")\n' });
    const file = path.join(dir, 'ro.py');
    const out = tempDir();
    fs.chmodSync(file, 0o444);
    fs.chmodSync(dir, 0o555);
    try {
      for (const backend of BACKENDS) {
        const result = path.join(out, `${backend}.py`);
        const r = await runCli(['ro.py', '--err-msg', 'boom sig', '-o', result, '--backend', backend], {
          cwd: dir,
        });
        assert.equal(r.code, 0, `${backend}: ${r.stderr}`);
        // The literal as the program writes it.
        assert.equal(fs.readFileSync(result, 'utf8'), 'raise ValueError("boom sig")\n');
        assert.equal(fs.statSync(file).mode & 0o777, 0o444);
        assert.match(fs.readFileSync(file, 'utf8'), /^import os\n/);
      }
    } finally {
      fs.chmodSync(dir, 0o755);
    }
  });

  test(
    'as root, in a checkout of another user, runs write beside the program and read a file of mode 000; none unmounts',
    { skip: process.getuid?.() === 0 ? false : 'needs root: a plain run as root has the override it checks' },
    async () => {
      // A container's root over a bind-mounted checkout: the folder and the program are
      // another user's, as is a file no one may read but root.
      const { parent, dir } = project({
        'owned.py': `import ctypes, os
here = os.path.dirname(os.path.abspath(__file__))
libc = ctypes.CDLL(None, use_errno=True)
unmounted = libc.umount2(here.encode(), 2) == 0
with open(os.path.join(here, "log.txt"), "w") as f:
    f.write("ran")
secret = open(os.path.join(here, "secret.txt")).read().split()[1]
raise RuntimeError(f"secret {secret} unmounted={unmounted}")
`,
        'secret.txt': 'token 42\n',
      });
      fs.chmodSync(path.join(dir, 'secret.txt'), 0);
      for (const name of ['owned.py', 'secret.txt', '.']) fs.chownSync(path.join(dir, name), 1000, 1000);
      const before = snapshot(parent);
      for (const backend of BACKENDS) {
        const out = path.join(tempDir(), 'min.py');
        const args = ['owned.py', '--err-msg', 'secret 42 unmounted=False', '-o', out, '--backend', backend];
        const r = await runCli(args, { cwd: dir });
        assert.equal(r.code, 0, `${backend}: ${r.stderr}`);
        assert.match(r.stderr, /it reproduces when run on its own/);
        assert.match(fs.readFileSync(out, 'utf8'), /secret\.txt/);
        assert.deepEqual(snapshot(parent), before, `${backend}: ${r.stderr}`);
      }
    },
  );

  test('/proc/{os.getpid()} is the run its own process, with both backends', async () => {
    // The subproc backend runs each program in a PID namespace of its own: the PID it
    // gets must name it in the /proc it sees.
    const { dir } = project({
      'me.py': `import os
argv = open(f"/proc/{os.getpid()}/cmdline", "rb").read().split(b"\\0")
if argv[1].endswith(b".py"):
    raise RuntimeError("runs as a script")
`,
    });
    for (const backend of BACKENDS) {
      const out = path.join(tempDir(), 'min.py');
      const r = await runCli(['me.py', '--err-msg', 'runs as a script', '-o', out, '--backend', backend], {
        cwd: dir,
      });
      assert.equal(r.code, 0, `${backend}: ${r.stderr}`);
    }
  });

  test('kill(-1) in a run reaches no process outside it, with both backends', async () => {
    // SIGCONT to every process the run may signal: harmless, and this test's process
    // counts the ones that reach it. Unisolated, every run reaches it.
    const { dir } = project({
      'sig.py': `import os, signal
try:
    os.kill(-1, signal.SIGCONT)
except ProcessLookupError:
    pass  # none but itself
raise RuntimeError("signalled all")
`,
    });
    let reached = 0;
    const count = () => reached++;
    process.on('SIGCONT', count);
    try {
      for (const extra of [[], ['--no-sandbox']]) {
        for (const backend of BACKENDS) {
          const out = path.join(tempDir(), 'min.py');
          const before = reached;
          const r = await runCli(
            ['sig.py', '--err-msg', 'signalled all', '-o', out, '--backend', backend, ...extra],
            { cwd: dir },
          );
          assert.equal(r.code, 0, `${backend} ${extra}: ${r.stderr}`);
          // Signals are delivered on the event loop: give it a turn.
          await new Promise((resolve) => setTimeout(resolve, 50));
          if (extra.length)
            assert.ok(reached > before, `${backend} ${extra}: the check itself sees a signal`);
          else assert.equal(reached, before, `${backend}: runs reached this process`);
        }
      }
    } finally {
      process.off('SIGCONT', count);
    }
  });

  test('the result writes the file its failure needs: it reproduces in a clean copy of the folder', async () => {
    const { dir } = project({ 'build.py': DESTRUCTIVE['build.py'].source });
    const r = await runCli(['build.py', '--err-msg', DESTRUCTIVE['build.py'].msg, '-o', 'min.py'], {
      cwd: dir,
    });
    assert.equal(r.code, 0, r.stderr);
    const result = fs.readFileSync(path.join(dir, 'min.py'), 'utf8');
    assert.match(result, /open\([^)]*['"]w['"]\)/, result);
    const clean = tempDir();
    fs.copyFileSync(path.join(dir, 'min.py'), path.join(clean, 'min.py'));
    const run = spawnSync('python3', ['min.py'], { cwd: clean, encoding: 'utf8' });
    assert.match(run.stderr, /Expecting property name enclosed/, run.stderr);
  });
});

describe('the final check is the user run', { skip }, () => {
  test('modules beside the program named like the standard library are the program own', async () => {
    // A plain run puts the program's folder first on sys.path: its inspect.py is what
    // `import inspect` gives there, and its json.py must not break autodd's own Python.
    const { dir } = project({
      'inspect.py': 'FOO = "local inspect"\n',
      'json.py': 'X = 1\n',
      'types.py': 'Y = 2\n',
      'prog.py': 'from inspect import FOO\nx = [1, 2]\nraise ValueError("shadow " + FOO)\n',
    });
    for (const backend of BACKENDS) {
      const args = ['prog.py', '--err-msg', 'shadow local', '-o', 'min.py', '--backend', backend];
      const r = await runCli(args, { cwd: dir });
      assert.equal(r.code, 0, `${backend}: ${r.stderr}`);
      assert.match(fs.readFileSync(path.join(dir, 'min.py'), 'utf8'), /^from inspect import FOO\n/);
    }
  });

  test('a program importing a module beside it, reduced from another folder', async () => {
    const { parent, dir } = project({
      'shapes.py':
        'def check(k):\n    if k % 16:\n        raise ValueError(f"tile {k} not a multiple of 16")\n',
      'prog.py': 'import shapes\nsizes = [32, 64, 24]\nfor s in sizes:\n    shapes.check(s)\n',
    });
    const out = path.join(dir, 'min.py');
    const r = await runCli([path.join(dir, 'prog.py'), '--err-msg', 'not a multiple of 16', '-o', out], {
      cwd: parent,
    });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, new RegExp(`final check: \\S*python3?\\S* ${out} in ${parent} \\(`));
    assert.match(r.stderr, /reproduces when run on its own \(2 of 2 runs\)/);
    // The module is the program's: left to each candidate, not a failed preload.
    assert.doesNotMatch(r.stderr, /not preloaded/);
    const run = spawnSync('python3', [out], { cwd: parent, encoding: 'utf8' });
    assert.match(run.stderr, /ValueError: tile \d+ not a multiple of 16/);
  });

  test('a module that prints when imported is not preloaded: its output reaches the candidates', async () => {
    for (const backend of BACKENDS) {
      const { dir } = project({
        'helper.py': 'print("helper loaded: config version 7")\nVALUE = 1\n',
        'prog.py': 'import json\nimport helper\nprint(json.dumps({"v": helper.VALUE}))\n',
      });
      const r = await runCli(
        ['prog.py', '--err-msg', 'config version 7', '-o', 'min.py', '--backend', backend],
        {
          cwd: dir,
        },
      );
      assert.equal(r.code, 0, `${backend}: ${r.stderr}`);
      assert.equal(fs.readFileSync(path.join(dir, 'min.py'), 'utf8'), 'import helper\n');
    }
  });

  test('descriptors left open by whoever started autodd reach no run', async () => {
    const { dir } = project({
      // Every run writes and removes through them, if it can: the original's checks,
      // each candidate, the final check.
      'fds.py': [
        'import os',
        'try:',
        '    os.write(30, b"ESCAPED through fd 30\\n")',
        'except OSError:',
        '    pass',
        'try:',
        '    os.unlink("keep.txt", dir_fd=31)',
        'except OSError:',
        '    pass',
        'raise RuntimeError("fd probe failed")',
        '',
      ].join('\n'),
    });
    const victim = tempDir();
    fs.writeFileSync(path.join(victim, 'log.txt'), 'untouched\n');
    fs.writeFileSync(path.join(victim, 'keep.txt'), 'kept\n');
    // Isolated or not (--no-sandbox, and so where namespaces are not available).
    const modes = BACKENDS.flatMap((backend) => [[backend], [backend, '--no-sandbox']]);
    for (const [backend, ...mode] of modes) {
      const file = fs.openSync(path.join(victim, 'log.txt'), 'r+');
      const folder = fs.openSync(victim, 'r');
      try {
        const r = await runCli(
          ['fds.py', '--err-msg', 'fd probe failed', '-o', 'min.py', '--backend', backend, ...mode],
          {
            cwd: dir,
            inherit: { 30: file, 31: folder },
          },
        );
        assert.equal(r.code, 0, r.stderr);
      } finally {
        fs.closeSync(file);
        fs.closeSync(folder);
      }
      const label = [backend, ...mode].join(' ');
      assert.equal(fs.readFileSync(path.join(victim, 'log.txt'), 'utf8'), 'untouched\n', label);
      assert.ok(fs.existsSync(path.join(victim, 'keep.txt')), label);
    }
  });

  test('a child that writes the message after the program exits: the message says it is not heard', async () => {
    const { dir } = project({
      'late.py': [
        'import os, sys, time',
        'if os.fork() == 0:',
        '    time.sleep(0.3)',
        '    sys.stderr.write("late child: state corrupted\\n")',
        '    os._exit(0)',
        '',
      ].join('\n'),
    });
    // A user sees it: the child outlives the program, and writes to the same terminal.
    const user = runPython('late.py', dir);
    assert.equal(user.status, 0);
    assert.match(user.output, /state corrupted/);
    for (const backend of BACKENDS) {
      const r = await runCli(
        ['late.py', '--err-msg', 'state corrupted', '-o', 'min.py', '--backend', backend],
        {
          cwd: dir,
        },
      );
      assert.equal(r.code, 1, r.stderr);
      assert.match(r.stderr, /writes the message after the program exits is not heard/);
    }
  });

  test('--stdin feeds every run, the final check too; without it the message says so', async () => {
    const { dir } = project({
      'reader.py':
        'import sys\nrows = sys.stdin.read().split()\nfor r in rows:\n    if r == "bad":\n        raise ValueError(f"bad input row {r}")\n',
      'rows.txt': 'ok\nok\nbad\n',
    });
    const plain = await runCli(['reader.py', '--err-msg', 'bad input row', '-o', 'min.py'], { cwd: dir });
    assert.equal(plain.code, 1, plain.stderr);
    assert.match(plain.stderr, /give one with --stdin FILE/);
    for (const backend of BACKENDS) {
      const r = await runCli(
        [
          'reader.py',
          '--err-msg',
          'bad input row',
          '-o',
          'min.py',
          '--stdin',
          'rows.txt',
          '--backend',
          backend,
        ],
        { cwd: dir },
      );
      assert.equal(r.code, 0, `${backend}: ${r.stderr}`);
      assert.match(r.stderr, /final check: \S+ \S+min\.py < \S+rows\.txt in /);
      const run = spawnSync('python3', ['min.py'], { cwd: dir, input: 'bad\n', encoding: 'utf8' });
      assert.match(run.stderr, /bad input row/);
    }
  });

  test('the final check, pasted into a shell, runs the result as the check did', async () => {
    const { dir } = project({
      "it's here/reader.py":
        'import sys\nrows = sys.stdin.read().split()\nfor r in rows:\n    if r != "ok":\n        raise ValueError(f"row {r}!")\n',
      'my rows.txt': 'ok\nbad\n',
    });
    // MSG needs the input: the line shown must feed it.
    const r = await runCli(
      ["it's here/reader.py", '--err-msg', 'row bad!', '-o', "it's here/min $1.py", '--stdin', 'my rows.txt'],
      { cwd: dir },
    );
    assert.equal(r.code, 0, r.stderr);
    const shown = /final check: (.*) in (.*) \((?:un)?isolated/.exec(r.stderr);
    assert.ok(shown, r.stderr);
    assert.equal(shown[2], dir);
    const pasted = spawnSync('sh', ['-c', shown[1]], { cwd: dir, encoding: 'utf8' });
    assert.match(pasted.stderr, /ValueError: row bad!/, `${shown[1]}\n${pasted.stderr}`);
    assert.match(shown[1], / < '\S*\/my rows\.txt'$/);
  });

  test('where runs cannot be isolated, each job runs in a copy of the program folder', async () => {
    for (const backend of BACKENDS) {
      const { parent, dir } = project({ 'build.py': DESTRUCTIVE['build.py'].source, 'data.csv': 'a\n' });
      const before = snapshot(parent);
      const out = path.join(tempDir(), 'min.py');
      const r = await runCli(
        ['build.py', '--err-msg', DESTRUCTIVE['build.py'].msg, '-o', out, '--backend', backend],
        {
          cwd: dir,
          env: { AUTODD_NO_NAMESPACES: '1' },
        },
      );
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stderr, /warning: candidates cannot be isolated here .*: each job runs in a copy of /);
      assert.match(r.stderr, /final check: .* \(unisolated\)/);
      assert.deepEqual(snapshot(parent), before, r.stderr);
    }
  });

  test('a result that keeps freeze markers is checked, and shown, with autodd on PYTHONPATH', async () => {
    const { dir } = project({
      'p.py': 'x = 1  # autodd: freeze\ny = [1, 2]\nraise ValueError("keep frozen bug")\n',
    });
    const r = await runCli(['p.py', '--err-msg', 'keep frozen bug', '-o', 'min.py', '--keep-freeze'], {
      cwd: dir,
    });
    assert.equal(r.code, 0, r.stderr);
    const shown = /final check: PYTHONPATH=(\S+) \S+ \S+min\.py in .*keeps freeze markers/.exec(r.stderr);
    assert.ok(shown, r.stderr);
    const plain = spawnSync('python3', ['min.py'], {
      cwd: dir,
      encoding: 'utf8',
      env: { ...process.env, PYTHONPATH: '' },
    });
    assert.match(plain.stderr, /No module named 'autodd'/);
    const asShown = spawnSync('python3', ['min.py'], {
      cwd: dir,
      encoding: 'utf8',
      env: { ...process.env, PYTHONPATH: shown[1] },
    });
    assert.match(asShown.stderr, /ValueError: keep frozen bug/);
  });

  test('a symlinked SOURCE runs as its target, beside its target folder', async () => {
    const { dir } = project({
      'shapes.py': 'def check(k):\n    raise ValueError(f"tile {k} is odd")\n',
      'prog.py': 'import shapes\nshapes.check(3)\n',
    });
    const links = tempDir();
    fs.symlinkSync(path.join(dir, 'prog.py'), path.join(links, 'prog.py'));
    for (const backend of BACKENDS) {
      const r = await runCli(['prog.py', '--err-msg', 'is odd', '-o', 'min.py', '--backend', backend], {
        cwd: links,
      });
      // The result runs where OUTPUT is, away from shapes.py: the final check says so.
      assert.equal(r.code, 1, `${backend}: ${r.stderr}`);
      assert.match(r.stderr, /original: ValueError, MSG in "ValueError: tile 3 is odd"/);
      assert.match(
        r.stderr,
        /did NOT reproduce in 2 runs on its own: it ends with ModuleNotFoundError \(it runs in .*, the program's files are in /,
      );
      assert.deepEqual(fs.readdirSync(dir).sort(), ['prog.py', 'shapes.py']);
    }
  });

  test('--no-sandbox warns', async () => {
    const { dir } = project({ 'p.py': 'raise ValueError("plain failure")\n' });
    const r = await runCli(['p.py', '--err-msg', 'plain failure', '-o', 'min.py', '--no-sandbox'], {
      cwd: dir,
    });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /warning: --no-sandbox: candidates run unisolated/);
    assert.match(r.stderr, /final check: .* \(unisolated\)/);
  });
});

describe('nothing outlives a reduction', () => {
  // The example, with a child in a session of its own that would sleep for a minute,
  // started by the original and by every candidate that keeps the first lines.
  const source =
    'import subprocess, sys\n' +
    'subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"], start_new_session=True)\n' +
    fs.readFileSync(EXAMPLE, 'utf8');
  /** @type {Record<string, ((child: import('node:child_process').ChildProcess) => void) | null>} */
  const KILLS = {
    'the end of the reduction': null,
    'SIGINT twice within 50 ms': (child) => {
      child.kill('SIGINT');
      setTimeout(() => child.kill('SIGINT'), 20);
    },
    'SIGTERM to the group': (child) => process.kill(-Number(child.pid), 'SIGTERM'),
    'SIGKILL of autodd': (child) => child.kill('SIGKILL'),
  };
  // Unisolated, no PID namespace ends what a run leaves: each run's reaper does.
  const MODES = [
    { mode: 'isolated', flags: [], skip: skipIsolated },
    { mode: '--no-sandbox', flags: ['--no-sandbox'], skip: skip },
  ];
  for (const { mode, flags, skip: skipMode } of MODES) {
    for (const backend of BACKENDS) {
      for (const [how, kill] of Object.entries(KILLS)) {
        test(
          `${backend}, ${mode}, ${how}: no process, no temp folder, no .tmp file left`,
          { skip: skipMode },
          async () => {
            const { dir } = project({ 'bug.py': source });
            let sent = false;
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
                ...flags,
              ],
              {
                cwd: dir,
                detached: true,
                onStderr: (text, child) => {
                  if (kill && !sent && (text.match(/accepted #/g) ?? []).length >= 2) {
                    sent = true;
                    kill(child);
                  }
                },
              },
            );
            if (kill) assert.ok(sent, run.stderr);
            else assert.equal(run.code, 0, run.stderr);
            await waitFor(() => processesWithMark(run.mark).length === 0, 5000).catch(() => {});
            assert.deepEqual(processesWithMark(run.mark), [], run.stderr);
            await waitFor(() => fs.readdirSync(run.tmp).length === 0, 3000).catch(() => {});
            assert.deepEqual(fs.readdirSync(run.tmp), [], 'the private temp folder is removed');
            assert.deepEqual(
              fs.readdirSync(dir).filter((f) => f.endsWith('.tmp')),
              [],
            );
            if (kill && how !== 'SIGKILL of autodd') assert.equal(run.code, 130, run.stderr);
          },
        );
      }
    }
  }

  test(
    'runner: a candidate that kills its parent, the zygote, cannot; what it left goes',
    { skip: skipIsolated },
    async () => {
      // It starts a sleeper in a session of its own, then kills its parent: the zygote,
      // the process that kills the sleeper after the run. The zygote is the first process
      // of the candidates' PID namespace, which the kernel keeps SIGKILL from.
      const { dir } = project({
        'killer.py': [
          'import os, signal, subprocess, sys',
          'subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"], start_new_session=True)',
          'print("zygote killer ran", flush=True)',
          'os.kill(os.getppid(), signal.SIGKILL)',
          'raise RuntimeError("zygote killer ran")',
          '',
        ].join('\n'),
      });
      const run = await runCli(['killer.py', '--err-msg', 'zygote killer ran', '-o', 'min.py'], { cwd: dir });
      assert.equal(run.code, 0, run.stderr);
      await waitFor(() => processesWithMark(run.mark).length === 0, 3000).catch(() => {});
      assert.deepEqual(processesWithMark(run.mark), [], run.stderr);
    },
  );
});
