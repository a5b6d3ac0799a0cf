// --launcher: workers started through ssh, against a real sshd this test starts on
// 127.0.0.1 with keys it makes (Debian's openssh-server; scripts/setup-launchers.sh installs it).

import assert from 'node:assert/strict';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { LAUNCHER_GRACE_MS } from '../src/backends/capture.js';
import { RunnerBackend } from '../src/backends/runner.js';
import { RemoteStatus, SubprocBackend } from '../src/backends/subproc.js';
import { Launcher, shippedRun, splitWords } from '../src/launcher.js';
import { Workspace } from '../src/python.js';
import {
  EXAMPLE,
  HAVE_ENGINE,
  isRunning,
  processesWithMark,
  runCli,
  runPython,
  tempDir,
  waitFor,
} from './helpers.js';

const SSHD = '/usr/sbin/sshd';
const MSG = 'K shape check failed';

describe('--launcher: the template', () => {
  for (const backend of ['runner', 'subproc']) {
    test(`${backend}: a launcher that cannot start Python is named, with what it said`, async () => {
      const dir = tempDir();
      fs.copyFileSync(EXAMPLE, path.join(dir, 'prog.py'));
      const launcher = "sh -c 'echo Host key verification failed. >&2; exit 255'";
      const args = [
        'prog.py',
        '--err-msg',
        MSG,
        '-o',
        'out.py',
        '--launcher',
        launcher,
        '--backend',
        backend,
      ];
      const run = await runCli(args, { cwd: dir });
      // A setup error, not a program that does not reproduce: one line, exit status 2.
      assert.equal(run.code, 2, run.stderr);
      const errors = run.stderr.split('\n').filter((line) => line.startsWith('autodd: error:'));
      assert.equal(errors.length, 1, run.stderr);
      assert.match(errors[0], /Python did not start through --launcher: .*Host key verification failed\./);
      assert.match(errors[0], /try it by hand: sh -c '.*exit 255' python3 -V$/);
      assert.doesNotMatch(run.stderr, /does not reproduce|PYTHONHASHSEED|--retries/);
      // No job ever started: no warning for each before the error says it all.
      assert.doesNotMatch(run.stderr, /warning/, run.stderr);
      if (backend === 'runner') assert.match(errors[0], /: job 1: Host key verification failed\.;/);
      assert.equal(fs.existsSync(path.join(dir, 'out.py')), false);
    });
  }

  test('hosts that all refuse: one error names each, jobs that said the same once', async () => {
    const dir = tempDir();
    fs.copyFileSync(EXAMPLE, path.join(dir, 'prog.py'));
    const script = path.join(dir, 'refuse.sh');
    fs.writeFileSync(
      script,
      [
        'case $1 in',
        '  gone*) echo "ssh: Could not resolve hostname $1: Name or service not known" >&2 ;;',
        '  *) echo "Permission denied (publickey)." >&2 ;;',
        'esac',
        'exit 255',
        '',
      ].join('\n'),
    );
    const run = await runCli(
      ['prog.py', '--err-msg', MSG, '-o', 'out.py', '-j', '3'].concat([
        '--launcher',
        `sh ${script} {host}`,
        '--hosts',
        'gone1,locked1,locked2',
      ]),
      { cwd: dir },
    );
    assert.equal(run.code, 2, run.stderr);
    assert.equal(run.stderr.trim().split('\n').length, 1, run.stderr);
    assert.match(
      run.stderr,
      new RegExp(
        '^autodd: error: Python did not start through --launcher: ' +
          'job 1 \\(gone1\\): ssh: Could not resolve hostname gone1: Name or service not known; ' +
          'job 2 \\(locked1\\), job 3 \\(locked2\\): Permission denied \\(publickey\\)\\.; try it by hand: ',
      ),
    );
  });

  test('a second Ctrl-C asks the launchers to end, and kills those that do not after their grace', async () => {
    const dir = tempDir();
    fs.writeFileSync(path.join(dir, 'prog.py'), 'import time\ntime.sleep(60)\nraise ValueError("slow")\n');
    const started = path.join(dir, 'started');
    // It ignores SIGTERM, and stays after the worker it started ends (as the worker
    // does once autodd is gone and its stdin ends).
    fs.writeFileSync(path.join(dir, 'deaf.sh'), `trap '' TERM\necho $$ >> ${started}\n"$@"\nsleep 60\n`);
    /** @type {import('node:child_process').ChildProcess | undefined} */
    let cli;
    const args = ['prog.py', '--err-msg', 'slow', '-o', 'out.py', '--launcher', 'sh deaf.sh'];
    const run = runCli(args, { cwd: dir, onStart: (child) => (cli = child) });
    await waitFor(() => fs.existsSync(started), 30_000);
    cli?.kill('SIGINT');
    // Apart, or the two signals merge into one.
    await new Promise((resolve) => setTimeout(resolve, 20));
    cli?.kill('SIGINT');
    const { code, stderr, mark } = await run;
    assert.equal(code, 130, stderr);
    const launcher = Number(fs.readFileSync(started, 'utf8'));
    assert.ok(isRunning(launcher), 'SIGTERM, not SIGKILL: the launcher has its grace');
    await waitFor(
      () => !isRunning(launcher) && processesWithMark(mark).length === 0,
      LAUNCHER_GRACE_MS + 5000,
    );
    assert.equal(fs.existsSync(path.join(dir, 'out.py')), false);
  });

  test('the worker starts under env, with the hash seed, and the devices only with --gpus', () => {
    const env = { PYTHONHASHSEED: '0', CUDA_VISIBLE_DEVICES: '3', ROCR_VISIBLE_DEVICES: '3', PATH: '/x' };
    const srun = new Launcher({ template: 'srun -N1', python: 'python3' });
    const plain = srun.argv(0, env, false);
    assert.deepEqual(plain.slice(0, 6), ['srun', '-N1', 'env', 'PYTHONHASHSEED=0', 'python3', '-c']);
    assert.equal(plain.at(-1), 'autodd-remote-worker');
    assert.deepEqual(srun.argv(0, env, true).slice(3, 6), [
      'PYTHONHASHSEED=0',
      'CUDA_VISIBLE_DEVICES=3',
      'ROCR_VISIBLE_DEVICES=3',
    ]);
    // ssh hands the words to the remote shell as one line: the code is one quoted word.
    const ssh = new Launcher({ template: 'ssh -p 22 {host}', hosts: ['a', 'b'], python: 'python3' });
    const words = ssh.argv(1, env, false);
    assert.deepEqual(words.slice(0, 4), ['ssh', '-p', '22', 'b']);
    const code = /** @type {string} */ (words.at(-2));
    assert.match(code, /^'import binascii,zlib;exec\(.*\)'$/);
    assert.doesNotMatch(code, /\n/);
    // ssh behind a wrapper still hands the words to a shell; srun and kubectl do not.
    const wrapped = new Launcher({ template: 'timeout 600 ssh {host}', hosts: ['a'], python: 'python3' });
    assert.equal(wrapped.argv(0, env, false).at(-2), code);
    assert.equal(srun.argv(0, env, false).at(-2), code.slice(1, -1));
    // A shell's `${name}` in the template is the shell's, not a mistyped placeholder.
    const braced = new Launcher({
      template: 'sh -c \'exec ssh ${NODE_PREFIX}{host} "$@"\' sh',
      hosts: ['7'],
      python: 'python3',
    });
    assert.equal(braced.argv(0, env, false)[2], 'exec ssh ${NODE_PREFIX}7 "$@"');
  });

  test('--launcher-shell: a wrapper that hands the command to a shell there gets it quoted', async () => {
    // A site's own login wrapper, under a name of its own: like ssh, it joins its words
    // into one line that a shell on the other side reads.
    const dir = tempDir();
    fs.writeFileSync(path.join(dir, 'gpu-login'), 'host=$1; shift\nexec bash -c "$*"\n');
    fs.writeFileSync(path.join(dir, 'prog.py'), `unused = 1\nraise ValueError('${MSG}')\n`);
    const args = ['prog.py', '--err-msg', MSG, '--launcher', `sh ${path.join(dir, 'gpu-login')} {host}`];
    const guessed = await runCli([...args, '-o', 'guessed.py', '--hosts', 'a'], { cwd: dir });
    assert.equal(guessed.code, 2, guessed.stderr);
    assert.match(
      guessed.stderr,
      /Python did not start through --launcher: job 1 \(a\): .*(syntax|unexpected)/i,
    );
    // bash there quotes the line it could not read: the worker's code, said as CODE.
    assert.match(
      guessed.stderr,
      / -c CODE autodd-remote-worker'; if the launcher hands .* add --launcher-shell yes;/,
    );
    assert.ok(guessed.stderr.length < 1000, guessed.stderr);
    const told = await runCli([...args, '-o', 'told.py', '--hosts', 'a', '--launcher-shell', 'yes'], {
      cwd: dir,
    });
    assert.equal(told.code, 0, told.stderr);
    assert.equal(fs.readFileSync(path.join(dir, 'told.py'), 'utf8'), `raise ValueError('${MSG}')\n`);
    // And the other way: an ssh word that is not the command.
    const env = { PYTHONHASHSEED: '0' };
    const pod = new Launcher({ template: 'kubectl exec -i ssh --', python: 'python3', shell: false });
    assert.equal(
      pod.argv(0, env, false).at(-2),
      new Launcher({ template: 'srun', python: 'python3' }).argv(0, env, false).at(-2),
    );
    const wrapper = new Launcher({
      template: 'gpu-login {host}',
      hosts: ['a'],
      python: 'python3',
      shell: true,
    });
    assert.match(/** @type {string} */ (wrapper.argv(0, env, false).at(-2)), /^'import binascii/);
  });

  test('is split into words as a shell would, and misuse is a usage error', async () => {
    assert.deepEqual(splitWords(`ssh -o 'A B' "x\\"y" c\\ d {host}`), [
      'ssh',
      '-o',
      'A B',
      'x"y',
      'c d',
      '{host}',
    ]);
    const dir = tempDir();
    fs.copyFileSync(EXAMPLE, path.join(dir, 'prog.py'));
    const outside = path.join(tempDir(), 'elsewhere.py');
    fs.writeFileSync(outside, 'pass\n');
    fs.mkdirSync(path.join(dir, 'data'));
    fs.symlinkSync(path.join(dir, 'gone.csv'), path.join(dir, 'data', 'table.csv'));
    /** @type {[string[], RegExp][]} */
    const misuses = [
      [['--launcher', 'ssh {host}'], /--launcher has \{host\}: name the hosts with --hosts/],
      [['--launcher', 'srun -N1', '--hosts', 'a,b'], /--hosts needs a --launcher with \{host\}/],
      [['--hosts', 'a'], /--hosts needs --launcher/],
      [['--launcher', "ssh '{host}", '--hosts', 'a'], /unclosed ' quote/],
      [['--launcher', 'env', '--gpus', 'auto'], /--gpus auto reads this machine's GPUs/],
      [['--launcher', 'ssh {hostt}'], /--launcher has \{hostt\}: the only placeholder is \{host\}/],
      [['--launcher', 'srun --nodelist={HOST}', '--hosts', 'a'], /--launcher has \{HOST\}/],
      [['--ship', 'prog.py'], /--ship needs --launcher/],
      [['--launcher', 'env', '--ship', 'nothing.py'], /--ship nothing\.py: no such file or folder/],
      [['--launcher', 'env', '--ship', outside], /--ship .* is outside the program's folder/],
      [['--launcher', 'env', '--ship', 'data'], /--ship data\/table\.csv: cannot read it: no such file/],
      [['--launcher-shell', 'yes'], /--launcher-shell needs --launcher/],
      [['--launcher', 'env', '--launcher-shell', 'maybe'], /--launcher-shell must be yes or no, not 'maybe'/],
    ];
    for (const [args, message] of misuses) {
      const run = await runCli(['prog.py', '--err-msg', MSG, '-o', 'out.py', ...args], { cwd: dir });
      assert.equal(run.code, 2, run.stderr);
      assert.match(run.stderr, message);
      assert.equal(run.stderr.trim().split('\n').length, 1, run.stderr);
    }
  });

  test('--ship: the files named are beside the program on the other side, bytes as here', async () => {
    // `env` as the launcher starts the worker here, but in a private folder of its own,
    // as on another machine: only what is shipped is beside the program.
    const dir = tempDir();
    fs.mkdirSync(path.join(dir, 'data', '__pycache__'), { recursive: true });
    fs.writeFileSync(
      path.join(dir, 'prog.py'),
      [
        'import json',
        'import helpers',
        'blob = open("data/blob.bin", "rb").read()',
        'if blob != bytes(range(256)):',
        '    raise SystemExit("the blob changed on the way")',
        'rows = json.load(open("data/rows.json"))',
        'total = 0',
        'for row in rows:',
        '    total += row["n"]',
        '    helpers.check(row)',
        'print(total)',
        '',
      ].join('\n'),
    );
    fs.writeFileSync(
      path.join(dir, 'helpers.py'),
      'def check(row):\n    if row["k"] != row["n"]:\n        raise ValueError(f"K shape check failed: {row}")\n',
    );
    fs.writeFileSync(path.join(dir, 'data', 'blob.bin'), Buffer.from([...Array(256).keys()]));
    fs.writeFileSync(
      path.join(dir, 'data', 'rows.json'),
      JSON.stringify([
        { k: 1, n: 1 },
        { k: 2, n: 3 },
      ]),
    );
    fs.writeFileSync(path.join(dir, 'data', '__pycache__', 'x.pyc'), 'not shipped');
    const args = ['prog.py', '--err-msg', MSG, '-o', 'out.py', '--launcher', 'env'];
    const bare = await runCli(args, { cwd: dir });
    assert.equal(bare.code, 1, bare.stderr);
    assert.match(bare.stderr, /No module named 'helpers'/);
    assert.match(bare.stderr, /the other side has only the program and what --ship PATH sends/);
    const run = await runCli([...args, '--ship', 'helpers.py', '--ship', 'data', '--report', 'r.json'], {
      cwd: dir,
    });
    assert.equal(run.code, 0, run.stderr);
    const report = JSON.parse(fs.readFileSync(path.join(dir, 'r.json'), 'utf8'));
    assert.deepEqual(report.ship, ['helpers.py', 'data']);
    const result = fs.readFileSync(path.join(dir, 'out.py'), 'utf8');
    assert.match(result, /helpers\.check/);
    assert.doesNotMatch(result, /print\(total\)/);
    // The result fails the same way here, where the files are.
    const here = spawnSync('python3', ['out.py'], { cwd: dir, encoding: 'utf8' });
    assert.match(here.stderr, /ValueError: K shape check failed/);
    assert.doesNotMatch(run.stderr, /beside the shipped files/);
    // OUTPUT elsewhere: checked there beside the shipped files, it needs them here too.
    const elsewhere = path.join(tempDir(), 'out.py');
    const away = await runCli(
      [
        'prog.py',
        '--err-msg',
        MSG,
        '-o',
        elsewhere,
        '--launcher',
        'env',
        '--ship',
        'helpers.py',
        '--ship',
        'data',
      ],
      { cwd: dir },
    );
    assert.equal(away.code, 0, away.stderr);
    assert.match(
      away.stderr,
      /warning: the final check ran .*out\.py beside the shipped files; here it is in /,
    );
  });

  test('a worker there leaves shipped modules to each candidate, and compiles them once', async () => {
    const dir = tempDir();
    fs.writeFileSync(path.join(dir, 'helper.py'), 'def twice(x):\n    return 2 * x\n');
    const program = path.join(dir, 'prog.py');
    const source = [
      'import importlib._bootstrap_external as e',
      'import os',
      'import sys',
      'print("preloaded:", "helper" in sys.modules)',
      'import helper',
      'cache = e.SourceLoader.source_to_code.__globals__.get("cache", {})',
      'print("compiled once:", [os.path.basename(p) for p in cache])',
      `print("${MSG}", helper.twice(21))`,
      '',
    ].join('\n');
    fs.writeFileSync(program, source);
    const workspace = await Workspace.create({ python: 'python3', jobs: 1, sourcePath: program });
    const launcher = new Launcher({
      template: 'env',
      python: 'python3',
      ship: shippedRun([path.join(dir, 'helper.py')], fs.realpathSync(dir)),
    });
    const backend = new RunnerBackend({
      workspace,
      needle: MSG,
      jobs: 1,
      timeoutMs: 10_000,
      launcher,
      programSource: source,
      preload: ['helper'],
    });
    try {
      for (let i = 0; i < 2; i += 1) {
        const r = await backend.run(source);
        assert.equal(r.found, true, r.stderrTail);
        // Isolated, a candidate's own compile would leave no cache for the next one.
        assert.match(r.stdoutTail, /compiled once: \['helper\.py'\]/, r.stdoutTail);
        // As here: the candidate may be the one that writes it.
        assert.match(r.stdoutTail, /preloaded: False/, r.stdoutTail);
      }
    } finally {
      await backend.close();
      workspace.close();
    }
  });

  test('jobs sent to the same host keep to their share of its CPUs, as jobs here do', async () => {
    const shares = (/** @type {string[]} */ hosts, /** @type {number} */ jobs) => {
      const launcher = new Launcher({ template: 'ssh {host}', hosts, python: 'python3' });
      return Array.from({ length: jobs }, (_, slot) => launcher.share(slot, jobs));
    };
    assert.deepEqual(shares(['a', 'a', 'b'], 4), [[0, 3], [1, 3], undefined, [2, 3]]);
    assert.deepEqual(shares(['a', 'b'], 2), [undefined, undefined]);
    assert.deepEqual(new Launcher({ template: 'srun', python: 'python3' }).share(0, 2), undefined);

    // Each candidate sleeps first, so that two started together take both jobs.
    const AFFINITY = `import os, time\ntime.sleep(0.2)\nprint("${MSG}", *sorted(os.sched_getaffinity(0)))`;
    /**
     * The CPUs each job's worker keeps to, and those each of two candidates run at once
     * may use, with jobs 1 and 2 sent to `hosts` (`env` ignores the host's variable).
     * @param {string[]} hosts
     */
    const seen = async (hosts) => {
      const workspace = await Workspace.create({ python: 'python3', jobs: 2 });
      const launcher = new Launcher({ template: 'env AUTODD_TEST_HOST={host}', hosts, python: 'python3' });
      const backend = new RunnerBackend({ workspace, needle: MSG, jobs: 2, timeoutMs: 10_000, launcher });
      try {
        const runs = await Promise.all([backend.run(AFFINITY), backend.run(AFFINITY)]);
        const cpus = runs.map((r) => {
          assert.equal(r.found, true, r.stderrTail);
          return r.stdoutTail.trim().slice(MSG.length).trim().split(' ').map(Number);
        });
        return { workers: backend.cpuShares(), candidates: cpus.sort((a, b) => a[0] - b[0]) };
      } finally {
        await backend.close();
        workspace.close();
      }
    };
    const apart = await seen(['a', 'b']);
    assert.deepEqual(apart.workers, [null, null], 'a job alone on its host keeps to no share');
    const [all] = apart.candidates;
    assert.deepEqual(apart.candidates, [all, all]);
    const together = await seen(['same']);
    if (all.length < 2) {
      assert.deepEqual(together.workers, [null, null], 'fewer CPUs than jobs: no shares');
      return;
    }
    const [a, b] = /** @type {number[][]} */ (together.workers);
    assert.deepEqual(
      [...a, ...b].sort((x, y) => x - y),
      all,
      'disjoint, and together all of them',
    );
    assert.deepEqual(
      together.candidates,
      [a, b].sort((x, y) => x[0] - y[0]),
      'candidates run in their share',
    );
  });

  test('--warm-up: the workers on the other side run it', async () => {
    const dir = tempDir();
    fs.writeFileSync(path.join(dir, 'prog.py'), 'unused = 1\nprint("REMOTE-" + "BUG")\n');
    // A warm-up whose exception the worker reports: proof that it ran there.
    fs.writeFileSync(path.join(dir, 'warm.py'), 'import os\nraise ValueError(f"warmed in {os.getcwd()}")\n');
    const run = await runCli(
      ['prog.py', '--err-msg', 'REMOTE-BUG', '-o', 'out.py', '--launcher', 'env', '--warm-up', 'warm.py'],
      { cwd: dir },
    );
    assert.equal(run.code, 0, run.stderr);
    const warned = run.stderr.match(/warning: the warm-up program stopped with ValueError: warmed in (\S+);/);
    assert.ok(warned, run.stderr);
    assert.match(warned[1], /autodd-remote-/, 'it ran in the private folder of the other side');
  });

  test('--warm-up that ends the worker there is dropped, not blamed on the launcher', async () => {
    const dir = tempDir();
    fs.writeFileSync(path.join(dir, 'prog.py'), 'unused = 1\nprint("REMOTE-" + "BUG")\n');
    fs.writeFileSync(path.join(dir, 'warm.py'), 'import os\nos._exit(3)\n');
    const run = await runCli(
      ['prog.py', '--err-msg', 'REMOTE-BUG', '-o', 'out.py', '-j', '2', '--launcher', 'env'].concat([
        '--warm-up',
        'warm.py',
        '--report',
        'r.json',
      ]),
      { cwd: dir },
    );
    assert.equal(run.code, 0, run.stderr);
    const warnings = run.stderr.match(/did not start with the warm-up program/g) ?? [];
    assert.equal(warnings.length, 1, run.stderr);
    assert.doesNotMatch(run.stderr, /through the launcher|preloading is off/);
    assert.equal(JSON.parse(fs.readFileSync(path.join(dir, 'r.json'), 'utf8')).warmUpDropped, true);
    assert.doesNotMatch(fs.readFileSync(path.join(dir, 'out.py'), 'utf8'), /unused/);
  });

  for (const backend of ['runner', 'subproc']) {
    test(`${backend}: candidates are isolated on the other side, or the job is warned of`, async () => {
      const dir = tempDir();
      const home = path.join(dir, 'home');
      fs.mkdirSync(home);
      const outside = path.join('/tmp', `autodd-isolated-${path.basename(dir)}`);
      const markers = [path.join(home, 'marker'), outside];
      fs.writeFileSync(
        path.join(dir, 'prog.py'),
        [
          'import os',
          `for target in [os.path.expanduser("~/marker"), ${JSON.stringify(outside)}]:`,
          '    with open(target, "a") as f:',
          '        f.write("x")',
          'unused = 1',
          'raise ValueError("ISOLATED-" + "BUG")',
          '',
        ].join('\n'),
      );
      const left = () => markers.filter((m) => fs.existsSync(m));
      const reduce = (/** @type {string} */ launcher, /** @type {string[]} */ extra = []) =>
        runCli(
          [
            'prog.py',
            '--err-msg',
            'ISOLATED-BUG',
            '-o',
            'out.py',
            '--backend',
            backend,
            '--launcher',
            launcher,
            ...extra,
          ],
          {
            cwd: dir,
            env: { HOME: home },
          },
        );
      try {
        const isolated = await reduce('env');
        assert.equal(isolated.code, 0, isolated.stderr);
        assert.deepEqual(left(), []);
        assert.doesNotMatch(isolated.stderr, /run unisolated|runs are unisolated|\(unisolated\)/);
        assert.match(
          isolated.stderr,
          /final check: env python3 out\.py in a private temporary folder there \(isolated\)/,
        );
        assert.doesNotMatch(fs.readFileSync(path.join(dir, 'out.py'), 'utf8'), /unused|open/);
        // The same program does write them: unisolated on purpose,
        const bare = await reduce('env', ['--no-sandbox']);
        assert.equal(bare.code, 0, bare.stderr);
        assert.deepEqual(left(), markers);
        for (const marker of markers) fs.rmSync(marker);
        // and where the other side allows no user namespace (none may be made in the
        // one this launcher makes), with a warning that says why.
        const noNamespaces =
          'unshare -U -r sh -c \'echo 0 > /proc/sys/user/max_user_namespaces; exec "$@"\' sh';
        const refused = await reduce(noNamespaces);
        assert.equal(refused.code, 0, refused.stderr);
        assert.match(
          refused.stderr,
          /job 1's (candidates run|runs are) unisolated \(.*No space left on device.*\): they can change/,
        );
        assert.match(refused.stderr, /final check: .* \(unisolated\)/);
        assert.deepEqual(left(), markers);
      } finally {
        for (const marker of markers) fs.rmSync(marker, { force: true });
      }
    });
  }

  test('a folder there that holds a mount is seen read-only, and the job is warned of', async () => {
    for (const backend of ['runner', 'subproc']) {
      const dir = tempDir();
      const home = path.join(dir, 'home');
      fs.mkdirSync(path.join(home, 'volume'), { recursive: true });
      fs.writeFileSync(
        path.join(dir, 'prog.py'),
        'import os\nunused = 1\nraise ValueError("MOUNTED-" + os.path.basename(os.path.expanduser("~")))\n',
      );
      // The other side's home holds a mount of its own, which a namespace made
      // inside cannot cover with an overlay.
      const launcher = 'unshare -U -r -m sh -c \'mount -t tmpfs none "$HOME/volume" && exec "$@"\' sh';
      const r = await runCli(
        [
          'prog.py',
          '--err-msg',
          'MOUNTED-home',
          '-o',
          'out.py',
          '--backend',
          backend,
          '--launcher',
          launcher,
        ],
        { cwd: dir, env: { HOME: home } },
      );
      assert.equal(r.code, 0, `${backend}: ${r.stderr}`);
      const warned = r.stderr.match(
        /job 1's (candidates|runs) see (.*) read-only: a mount inside cannot be overlaid/,
      );
      assert.ok(warned, `${backend}: ${r.stderr}`);
      assert.ok(warned[2].split(', ').includes(fs.realpathSync(home)), warned[2]);
      assert.equal(r.stderr.match(/read-only: a mount inside/g)?.length, 1, r.stderr);
      assert.match(r.stderr, /final check: .* \(isolated\)/);
      assert.doesNotMatch(r.stderr, /unisolated/);
      assert.equal(fs.readFileSync(path.join(dir, 'out.py'), 'utf8').includes('unused'), false);
    }
  });

  test('--python names the interpreter on the other side, which need not exist here', async () => {
    const dir = tempDir();
    const there = path.join(dir, 'there');
    fs.mkdirSync(there);
    // `rpython` exists only on the launcher's PATH.
    const real = spawnSync('python3', ['-c', 'import sys; print(sys.executable)'], {
      encoding: 'utf8',
    }).stdout.trim();
    fs.symlinkSync(real, path.join(there, 'rpython'));
    fs.writeFileSync(path.join(dir, 'prog.py'), 'unused = 1\nraise ValueError("only " + "there")\n');
    const run = await runCli(
      [
        'prog.py',
        '--err-msg',
        'only there',
        '-o',
        'out.py',
        '--launcher',
        `env PATH=${there}:/usr/bin:/bin`,
        '--python',
        'rpython',
      ],
      { cwd: dir },
    );
    assert.equal(run.code, 0, run.stderr);
    // The merged string takes the program's double quotes.
    assert.equal(fs.readFileSync(path.join(dir, 'out.py'), 'utf8'), 'raise ValueError("only there")\n');
  });

  test('--stdin: every run on the other side reads the file given here', async () => {
    const dir = tempDir();
    fs.writeFileSync(
      path.join(dir, 'prog.py'),
      [
        'import sys',
        'rows = [line.split(",") for line in sys.stdin.read().splitlines()]',
        'widths = {len(row) for row in rows}',
        'print("rows:", len(rows))',
        'if len(widths) > 1:',
        '    raise ValueError(f"ragged table: widths {sorted(widths)}")',
        '',
      ].join('\n'),
    );
    fs.writeFileSync(path.join(dir, 'table.csv'), 'a,b,c\n1,2,3\n4,5\n');
    const run = await runCli(
      [
        'prog.py',
        '--err-msg',
        'ragged table: widths [2, 3]',
        '-o',
        'out.py',
        '--launcher',
        'env',
        '--stdin',
        'table.csv',
      ],
      { cwd: dir },
    );
    assert.equal(run.code, 0, run.stderr);
    const result = fs.readFileSync(path.join(dir, 'out.py'), 'utf8');
    assert.match(result, /sys\.stdin/);
    const here = spawnSync('python3', ['out.py'], {
      cwd: dir,
      encoding: 'utf8',
      input: 'a,b,c\n1,2,3\n4,5\n',
    });
    assert.match(here.stderr, /ragged table: widths \[2, 3\]/);
  });
});

/** A port nobody listens on now. */
async function freePort() {
  const server = net.createServer();
  await new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(undefined)));
  const address = /** @type {net.AddressInfo} */ (server.address());
  await new Promise((resolve) => server.close(resolve));
  return address.port;
}

/** @type {Promise<string> | undefined} */
let localReduction;

/**
 * What a local `-j 2` reduction of the example gives, the result every reduction
 * through a launcher must match (reduced once for all of them).
 * @returns {Promise<string>}
 */
function localResult() {
  localReduction ??= (async () => {
    const dir = tempDir();
    fs.copyFileSync(EXAMPLE, path.join(dir, 'prog.py'));
    const run = await runCli(['prog.py', '--err-msg', MSG, '-o', 'local.py', '-j', '2'], { cwd: dir });
    assert.equal(run.code, 0, run.stderr);
    return fs.readFileSync(path.join(dir, 'local.py'), 'utf8');
  })();
  return localReduction;
}

/** What the command line of every launched worker, and of its launcher, holds (python/autodd_boot.py). */
const REMOTE = 'autodd-remote-';

/**
 * The pids of the processes a launched worker left, oldest first: the ssh clients here
 * (`program` ssh) or the workers, their zygotes and candidates there (python).
 * @param {'ssh' | 'python' | 'any'} program
 */
function launched(program) {
  const pids = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const argv = fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
      const name = path.basename(argv[0]);
      const kind = name === 'ssh' ? 'ssh' : name.startsWith('python') ? 'python' : 'other';
      if (argv.some((a) => a.includes(REMOTE)) && (program === 'any' || kind === program))
        pids.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return pids.sort((a, b) => a - b);
}

/**
 * The oldest of the processes `launched(program)` finds that a launched process did not
 * start: a session's ssh client, or the first worker there (not its janitor, zygote
 * or candidates). By start time: pids wrap around, and the oldest may not be the lowest.
 * @param {'ssh' | 'python'} program
 * @returns {number | undefined}
 */
function oldestLaunched(program) {
  const all = new Set(launched('any'));
  /** @param {number} pid */
  const stat = (pid) => {
    try {
      const text = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
      // After the command's name (which may hold spaces): state, ppid, …, starttime (22nd).
      const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
      return { ppid: Number(fields[1]), start: Number(fields[19]) };
    } catch {
      return undefined;
    }
  };
  let oldest;
  let oldestStart = Infinity;
  for (const pid of launched(program)) {
    const info = stat(pid);
    if (!info || all.has(info.ppid) || info.start >= oldestStart) continue;
    oldest = pid;
    oldestStart = info.start;
  }
  return oldest;
}

/** The private folders launched workers made (ssh to this machine: they are here, in /tmp). */
function remoteFolders() {
  return fs.readdirSync('/tmp').filter((name) => name.startsWith(REMOTE));
}

/** Nothing is left of the launched workers: no process, here or there, and no folder. */
async function nothingLeft() {
  await waitFor(() => launched('any').length === 0 && remoteFolders().length === 0, 5000);
}

describe(
  '--launcher: a host that goes down for good',
  { skip: !HAVE_ENGINE && 'wasm engine not built' },
  () => {
    /** @type {string} */
    let dir;
    /** @type {string} */
    let local;
    /** @type {string} the launcher's script: `sh SCRIPT HOST COMMAND…` */
    let script;

    before(async () => {
      dir = tempDir();
      fs.copyFileSync(EXAMPLE, path.join(dir, 'prog.py'));
      // The launcher runs the worker here, on whichever "host". One named down-… lets
      // its first worker start, writes down which process that worker is, and then
      // refuses every start, as ssh does once the host has gone away.
      script = path.join(dir, 'launch.sh');
      fs.writeFileSync(
        script,
        [
          'host=$1; shift',
          `state=${dir}/$host`,
          'case $host in down-*)',
          '  if [ -e "$state.pid" ]; then echo "ssh: connect to host $host port 22: No route to host" >&2; exit 255; fi',
          'esac',
          'echo $$ > "$state.pid"',
          'exec "$@"',
          '',
        ].join('\n'),
      );
      local = await localResult();
    });

    /**
     * Reduces the example through the launcher to `hosts`, killing the worker of the
     * first host once 5 candidates were accepted.
     * @param {string} out
     * @param {string[]} hosts
     */
    const reduceLosing = async (out, hosts) => {
      let killed = false;
      const pidFile = path.join(dir, `${hosts[0]}.pid`);
      const run = await runCli(
        [
          'prog.py',
          '--err-msg',
          MSG,
          '-o',
          out,
          '-j',
          String(hosts.length),
          '--report',
          `${out}.json`,
        ].concat(['--launcher', `sh ${script} {host}`, '--hosts', hosts.join(',')]),
        {
          cwd: dir,
          onStderr: (text) => {
            if (killed || (text.match(/accepted #/g) ?? []).length < 5 || !fs.existsSync(pidFile)) return;
            killed = true;
            process.kill(Number(fs.readFileSync(pidFile, 'utf8')), 'SIGKILL');
          },
        },
      );
      assert.equal(killed, true, 'the worker was killed');
      await waitFor(() => processesWithMark(run.mark).length === 0, 5000);
      return run;
    };

    test('its job is dropped, the others end with the same result, checked on a live host', async () => {
      const run = await reduceLosing('dropped.py', ['down-1', 'up']);
      assert.equal(run.code, 0, run.stderr);
      assert.match(run.stderr, /job 1 \(down-1\) dropped: its worker died and could not be started again/);
      assert.equal(fs.readFileSync(path.join(dir, 'dropped.py'), 'utf8'), local);
      // Job 1's host is gone: the final check ran where job 2 runs.
      assert.match(run.stderr, /final check: sh \S+ up python3 dropped\.py/);
      const report = JSON.parse(fs.readFileSync(path.join(dir, 'dropped.py.json'), 'utf8'));
      assert.deepEqual(report.droppedJobs, [1]);
      assert.equal(report.reproduced, true);
    });

    test("the final check is a fresh python3 there, with the user's hash seed, not the reduction's", async () => {
      // Reproduces only under the reduction's fixed seed (frozen, so the reduction keeps
      // the test): a user's own run does not.
      fs.writeFileSync(
        path.join(dir, 'seeded.py'),
        [
          'import os',
          'unused = 1',
          '# autodd: freeze-start',
          'if os.environ.get("PYTHONHASHSEED") == "0":',
          `    raise SystemExit("${MSG}")`,
          '# autodd: end-freeze',
          '',
        ].join('\n'),
      );
      const args = ['seeded.py', '--err-msg', MSG];
      const here = await runCli([...args, '-o', 'seeded-here.py'], { cwd: dir });
      const there = await runCli(
        [...args, '-o', 'seeded-there.py', '--launcher', `sh ${script} {host}`, '--hosts', 'up'],
        { cwd: dir },
      );
      for (const run of [here, there]) {
        assert.equal(run.code, 1, run.stderr);
        assert.match(run.stderr, /original: .*\(2 of 2 runs reproduced\)/);
        assert.match(run.stderr, /but it did NOT reproduce in 2 runs on its own/);
      }
      assert.match(there.stderr, /final check: sh \S+ up python3 seeded-there\.py/);
    });

    test("a fresh run's launch lost on the way is made again, and --report counts it", async () => {
      // The launcher loses the first launch of a single run (the original's check in a
      // fresh python3, or the final check), as a dropped connection does. Launched when
      // due (--no-prefork): a launch made ahead that is lost before its run is replaced
      // then, and no run is made again.
      const once = path.join(dir, 'lose-once.sh');
      fs.writeFileSync(
        once,
        [
          'case "$*" in *autodd-remote-run*)',
          `  if mkdir ${dir}/lost-once 2>/dev/null; then echo "Connection reset by peer" >&2; exit 255; fi`,
          'esac',
          'shift; exec "$@"',
          '',
        ].join('\n'),
      );
      const run = await runCli(
        [
          'prog.py',
          '--err-msg',
          MSG,
          '-o',
          'relaunched.py',
          '--report',
          'relaunched.json',
          '--no-prefork',
        ].concat(['--launcher', `sh ${once} {host}`, '--hosts', 'up']),
        { cwd: dir },
      );
      assert.equal(run.code, 0, run.stderr);
      assert.ok(fs.existsSync(path.join(dir, 'lost-once')), 'a launch was lost');
      assert.equal(fs.readFileSync(path.join(dir, 'relaunched.py'), 'utf8'), local);
      const report = JSON.parse(fs.readFileSync(path.join(dir, 'relaunched.json'), 'utf8'));
      assert.equal(report.restarts, 1);
      assert.deepEqual(report.droppedJobs, []);
    });

    test('with no job left, the reduction stops with one line and the best program so far', async () => {
      const run = await reduceLosing('stopped.py', ['down-2']);
      assert.equal(run.code, 2, run.stderr);
      assert.match(
        run.stderr,
        /^autodd: error: job 1 \(down-2\): its worker died and could not be started again .*no other job is left/m,
      );
      assert.doesNotMatch(run.stderr, /^\s+at /m);
      // What OUTPUT holds was accepted, so it reproduces, and is smaller than the original.
      const kept = fs.readFileSync(path.join(dir, 'stopped.py'), 'utf8');
      assert.ok(kept.length < fs.readFileSync(path.join(dir, 'prog.py'), 'utf8').length);
      assert.match(runPython('stopped.py', dir).output, new RegExp(MSG));
    });
  },
);

/**
 * Writes a small program that imports a module beside it (`helpers.py`, which `--ship`
 * must send), for reductions with the subproc backend.
 * @param {string} dir
 */
function writeSmallProgram(dir) {
  fs.writeFileSync(
    path.join(dir, 'prog.py'),
    [
      'import helpers',
      'sizes = [(64, 32), (32, 128), (128, 64)]',
      'for m, k in sizes:',
      '    print("tile", m, k)',
      'helpers.check(sizes[1])',
      '',
    ].join('\n'),
  );
  fs.writeFileSync(
    path.join(dir, 'helpers.py'),
    'def check(shape):\n    m, k = shape\n    if k != 32:\n        raise ValueError(f"K shape check failed: {k} != 32")\n',
  );
}

describe('--backend subproc through a launcher', () => {
  /** @type {string} */
  let dir;
  /** @type {string} the launcher's script: `sh SCRIPT HOST COMMAND…` */
  let script;

  before(() => {
    dir = tempDir();
    // The launcher runs the program here, on whichever "host", counting its launches
    // (under a lock: a job's next launch starts while its run goes on) and logging when
    // each starts and ends in HOST.log.
    // flaky-…: of every four launches, the second is refused (ssh's 255) and the fourth
    // is cut once the program has started (its stdout ends after the start line).
    // down-N: refuses every launch after its N-th, as ssh does once the host is gone.
    script = path.join(dir, 'launch.sh');
    fs.writeFileSync(
      script,
      [
        'host=$1; shift',
        `count=${dir}/$host.count`,
        `n=$(flock "$count.lock" sh -c 'n=$(( $(cat "$0" 2>/dev/null || echo 0) + 1 )); echo $n > "$0"; echo $n' "$count")`,
        `echo "start $n" >> ${dir}/$host.log`,
        `trap 'echo "end $n" >> ${dir}/$host.log' EXIT`,
        'case $host in',
        '  flaky-*) case $((n % 4)) in',
        '    2) echo "ssh: connect to host $host port 22: Connection refused" >&2; exit 255;;',
        '    0) "$@" | head -c 47; exit 0;;',
        '  esac;;',
        '  down-*) if [ $n -gt "${host#down-}" ]; then',
        '    echo "ssh: connect to host $host port 22: No route to host" >&2; exit 255; fi;;',
        'esac',
        '"$@"',
        '',
      ].join('\n'),
    );
  });

  test('says where the program ended, how long it ran there, and how it ended', async () => {
    const workspace = await Workspace.create({ python: 'python3', jobs: 1 });
    // A launch that takes 1.5 s does not count in the program's time limit of 1 s.
    const slow = new Launcher({ template: 'sh -c "sleep 1.5; exec \\"\\$@\\"" sh', python: 'python3' });
    const backend = new SubprocBackend({
      workspace,
      needle: MSG,
      timeoutMs: 1000,
      launchMs: 5000,
      jobs: 1,
      launcher: slow,
    });
    try {
      const quick = await backend.run(`import time\ntime.sleep(0.1)\nprint("${MSG}")`);
      assert.equal(quick.outcome, 'exited');
      assert.equal(quick.found, true);
      assert.ok(quick.ms >= 100 && quick.ms < 1000, `ran ${quick.ms} ms there`);
      const loop = await backend.run('while True:\n    pass');
      assert.equal(loop.outcome, 'timeout');
      assert.ok(loop.ms >= 1000 && loop.ms < 1500, `ran ${loop.ms} ms there`);
      // A signal comes back as the signal, as a local run says it (not 128 + N).
      const segv = await backend.run('import os, signal\nos.kill(os.getpid(), signal.SIGSEGV)');
      assert.equal(segv.outcome, 'signaled');
      assert.equal(segv.signal, 'SIGSEGV');
      const exit = await backend.run('raise SystemExit(255)');
      assert.equal(exit.outcome, 'exited');
      assert.equal(exit.exitCode, 255);
      assert.equal(backend.restarts, 0);
    } finally {
      await backend.close();
      workspace.close();
    }
    await nothingLeft();
  });

  /**
   * A backend of one job through `template` for `use`, closed after it; then nothing
   * launched is left.
   * @param {string} template
   * @param {{ timeoutMs: number, launchMs?: number, isolateThere?: boolean }} limits
   * @param {(backend: SubprocBackend) => Promise<void>} use
   */
  const throughLauncher = async (template, limits, use) => {
    const workspace = await Workspace.create({ python: 'python3', jobs: 1 });
    const launcher = new Launcher({ template, python: 'python3' });
    const backend = new SubprocBackend({ workspace, needle: MSG, jobs: 1, launcher, ...limits });
    try {
      await use(backend);
    } finally {
      await backend.close();
      workspace.close();
    }
    await nothingLeft();
  };

  test('a launcher that never starts the program is given up on after the time allowed', async () => {
    await throughLauncher('sh -c "sleep 30" sh', { timeoutMs: 200, launchMs: 300 }, async (backend) => {
      const r = await backend.run(`print("${MSG}")`);
      assert.equal(r.outcome, 'crashed');
      assert.match(
        r.error ?? '',
        /^its launch was lost before the program started \(the launcher did not start it within/,
      );
      // Made again each time, and then, the only job, never launched: the run's crash.
      assert.equal(backend.restarts, 3);
      assert.equal(backend.dropped.size, 0);
    });
  });

  test('closing the backend cancels a launch, which is not made again', async () => {
    await throughLauncher('env', { timeoutMs: 10_000 }, async (backend) => {
      const pending = backend.run('import time\ntime.sleep(30)');
      await waitFor(() => launched('python').length >= 2, 5000);
      await backend.close();
      const r = await pending;
      assert.equal(r.outcome, 'cancelled');
      assert.equal(backend.restarts, 0);
    });
  });

  test('a cancelled launch is asked to end (SIGTERM) and killed only if it does not', async () => {
    const log = path.join(dir, 'term.log');
    // Like srun, it passes SIGTERM on to what it started (its step) and waits for it.
    const polite = path.join(dir, 'polite.sh');
    fs.writeFileSync(
      polite,
      [
        `trap 'echo term >> ${log}; kill -TERM $p 2>/dev/null; wait $p; echo ended >> ${log}; exit 143' TERM`,
        // An asynchronous command reads /dev/null unless given stdin by another name.
        'exec 3<&0',
        '"$@" <&3 3<&- &',
        'p=$!',
        'wait $p',
        '',
      ].join('\n'),
    );
    // It ignores SIGTERM, and so does the worker it becomes.
    const deaf = path.join(dir, 'deaf.sh');
    fs.writeFileSync(deaf, `trap '' TERM\nexec "$@"\n`);
    const sleeper = 'import time\ntime.sleep(30)';
    await throughLauncher(`sh ${polite}`, { timeoutMs: 60_000 }, async (backend) => {
      const controller = new AbortController();
      const pending = backend.run(sleeper, { signal: controller.signal });
      await waitFor(() => launched('python').length >= 2, 5000);
      controller.abort();
      const r = await pending;
      assert.equal(r.outcome, 'cancelled');
      // Not killed: its trap ran to the end, after what it started had ended.
      assert.equal(fs.readFileSync(log, 'utf8'), 'term\nended\n');
    });
    await throughLauncher(`sh ${deaf}`, { timeoutMs: 60_000 }, async (backend) => {
      const pending = backend.run(sleeper);
      await waitFor(() => launched('python').length >= 2, 5000);
      const closing = performance.now();
      await backend.close();
      assert.ok(performance.now() - closing >= LAUNCHER_GRACE_MS - 100, 'waited for it, then killed it');
      assert.equal((await pending).outcome, 'cancelled');
    });
  });

  test('once the program said how it ended, a process it left holding stdout is not waited for', async () => {
    const mark = `held-${process.pid}`;
    // It starts a process of its own session that holds its stdout, and ends.
    const escaping = [
      'import os, subprocess, sys',
      `env = dict(os.environ, AUTODD_TEST_MARK="${mark}")`,
      'subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"], env=env, start_new_session=True)',
      `print("${MSG}")`,
    ].join('\n');
    try {
      // Like ssh, the launcher here ends when the other side's stdout is closed by all.
      const limits = { timeoutMs: 10_000, isolateThere: false };
      await throughLauncher(`sh -c '"$@" | cat' sh`, limits, async (backend) => {
        const started = performance.now();
        const r = await backend.run(escaping);
        assert.equal(r.outcome, 'exited');
        assert.equal(r.found, true);
        assert.ok(performance.now() - started < 5000, `took ${performance.now() - started} ms`);
        // Its session is its own, but the run there adopts it, and kills it once the
        // program has ended.
        assert.deepEqual(processesWithMark(mark), [], 'unisolated, the run killed it');
      });
      await throughLauncher(`sh -c '"$@" | cat' sh`, { timeoutMs: 10_000 }, async (backend) => {
        const r = await backend.run(escaping);
        assert.equal(r.found, true);
        assert.equal(r.unisolatedThere, undefined, r.unisolatedThere);
        assert.deepEqual(processesWithMark(mark), [], 'isolated, it went with the program');
      });
    } finally {
      for (const pid of processesWithMark(mark)) process.kill(pid, 'SIGKILL');
    }
  });

  test('a program that ends its own launch each time is a crash, and no job is dropped', async () => {
    const workspace = await Workspace.create({ python: 'python3', jobs: 2 });
    const launcher = new Launcher({ template: `sh ${script} {host}`, hosts: ['a', 'b'], python: 'python3' });
    // Unisolated, its parent is the launch (isolated, the init of its PID namespace).
    const backend = new SubprocBackend({
      workspace,
      needle: MSG,
      timeoutMs: 4000,
      jobs: 2,
      launcher,
      isolateThere: false,
    });
    try {
      const r = await backend.run('import os, signal\nos.kill(os.getppid(), signal.SIGKILL)');
      assert.equal(r.outcome, 'crashed');
      assert.match(r.error ?? '', /^its launch was lost while the program ran/);
      assert.equal(backend.restarts, 3, 'launched again, each time');
      assert.equal(backend.dropped.size, 0, 'the fault was the program, not the job');
      const [a, b] = await Promise.all([backend.run(`print("${MSG}")`), backend.run(`print("${MSG}")`)]);
      assert.ok(a.found && b.found, 'both jobs still run programs');
    } finally {
      await backend.close();
      workspace.close();
    }
    await nothingLeft();
  });

  test("the stream of a run keeps the program's output whole, however it is cut", () => {
    const nonce = 'ab'.repeat(16);
    const mark = `\0autodd ${nonce} `;
    // The program writes NULs and a mark with another nonce: its own output.
    const own = `x\0autodd ${'cd'.repeat(16)} end exit 0 1\n\0auto`;
    const stream = Buffer.from(`${mark}start\n${own}${mark}end signal SIGSEGV 12.5\nafter`);
    for (let cut = 0; cut <= stream.length; cut++) {
      for (const second of [cut, Math.min(stream.length, cut + 3)]) {
        /** @type {Buffer[]} */
        const fed = [];
        const status = new RemoteStatus(nonce, (chunk) => fed.push(Buffer.from(chunk)));
        status.push(stream.subarray(0, cut));
        status.push(stream.subarray(cut, second));
        status.push(stream.subarray(second));
        status.close();
        assert.equal(Buffer.concat(fed).toString(), own, `cut at ${cut}, ${second}`);
        assert.equal(status.started, true);
        assert.deepEqual(status.end, { how: 'signal', value: 'SIGSEGV', ms: 12.5 });
      }
    }
    // Without its end, what looked like the beginning of a mark was the program's.
    const cutShort = new RemoteStatus(nonce, () => {});
    /** @type {Buffer[]} */
    const fed = [];
    cutShort.feed = (chunk) => fed.push(Buffer.from(chunk));
    cutShort.push(Buffer.from(`${mark}start\nlast\0aut`));
    cutShort.close();
    assert.equal(Buffer.concat(fed).toString(), 'last\0aut');
    assert.equal(cutShort.end, undefined);
  });

  describe('lost launches', { skip: !HAVE_ENGINE && 'wasm engine not built' }, () => {
    /** @type {string} */
    let here;

    before(async () => {
      writeSmallProgram(dir);
      const run = await runCli(
        ['prog.py', '--err-msg', MSG, '--backend', 'subproc', '-j', '2', '-o', 'here.py'],
        {
          cwd: dir,
        },
      );
      assert.equal(run.code, 0, run.stderr);
      here = fs.readFileSync(path.join(dir, 'here.py'), 'utf8');
    });

    /**
     * Reduces prog.py through the launcher to `hosts`, one job each.
     * @param {string} out
     * @param {string[]} hosts
     * @param {readonly string[]} [flags]
     */
    const reduceThere = async (out, hosts, flags = []) => {
      const run = await runCli(
        ['prog.py', '--err-msg', MSG, '--backend', 'subproc', '-o', out, '--report', `${out}.json`]
          .concat(['-j', String(hosts.length), '--ship', 'helpers.py', ...flags])
          .concat(['--launcher', `sh ${script} {host}`, '--hosts', hosts.join(',')]),
        { cwd: dir },
      );
      await nothingLeft();
      // The launcher here passes the run's TMPDIR on: the other side's folders were there.
      const left = () => fs.readdirSync(run.tmp).filter((name) => name.startsWith(REMOTE));
      await waitFor(() => left().length === 0, 5000);
      const report =
        run.code === 2 ? undefined : JSON.parse(fs.readFileSync(path.join(dir, `${out}.json`), 'utf8'));
      return { ...run, report };
    };

    test("a job's next launch starts while its run goes on, unless --no-prefork", async () => {
      /** @type {Record<string, { launches: number, together: number }>} */
      const seen = {};
      for (const [host, flags] of /** @type {const} */ ([
        ['ahead', []],
        ['due', ['--no-prefork']],
      ])) {
        const run = await reduceThere(`${host}.py`, [host], flags);
        assert.equal(run.code, 0, run.stderr);
        assert.equal(fs.readFileSync(path.join(dir, `${host}.py`), 'utf8'), here);
        assert.equal(run.report.prefork, host === 'ahead');
        assert.equal(run.report.restarts, 0);
        // The most launches under way at once.
        const log = fs
          .readFileSync(path.join(dir, `${host}.log`), 'utf8')
          .trim()
          .split('\n');
        const ended = new Set(log.filter((line) => line.startsWith('end ')).map((line) => line.slice(4)));
        let now = 0;
        let together = 0;
        for (const line of log) {
          const [what, n] = line.split(' ');
          if (!ended.has(n)) continue;
          now += what === 'start' ? 1 : -1;
          together = Math.max(together, now);
        }
        seen[host] = { launches: log.filter((line) => line.startsWith('start ')).length, together };
      }
      // One job: ahead, its next launch waits beside the one running, and the final
      // check's first launch waits from the start; each is used, and only the last
      // started ahead, never needed, is wasted (the final check's runs come after it).
      assert.equal(seen.ahead.together, 3, JSON.stringify(seen));
      assert.equal(seen.due.together, 1, JSON.stringify(seen));
      assert.ok(seen.ahead.launches <= seen.due.launches + 1, JSON.stringify(seen));
    });

    test("the final check's runs are launched ahead: the first as the reduction starts, unless --no-prefork", async () => {
      for (const [host, flags] of /** @type {const} */ ([
        ['final-ahead', []],
        ['final-due', ['--no-prefork']],
      ])) {
        const logFile = path.join(dir, `${host}.log`);
        /** @type {string[] | undefined} the launches started by the reduction's tenth accept */
        let midway;
        // The runner: the worker is launched once, and each of the final check's runs.
        const run = await runCli(
          ['prog.py', '--err-msg', MSG, '-o', `${host}.py`, '--ship', 'helpers.py', ...flags].concat([
            '--launcher',
            `sh ${script} {host}`,
            '--hosts',
            host,
          ]),
          {
            cwd: dir,
            onStderr: (text) => {
              if (midway || (text.match(/accepted #/g) ?? []).length < 10) return;
              midway = fs
                .readFileSync(logFile, 'utf8')
                .split('\n')
                .filter((line) => line.startsWith('start '));
            },
          },
        );
        assert.equal(run.code, 0, run.stderr);
        assert.match(run.stderr, /reproduces when run on its own \(2 of 2 runs\)/);
        assert.equal(fs.readFileSync(path.join(dir, `${host}.py`), 'utf8'), here);
        await nothingLeft();
        const log = fs
          .readFileSync(path.join(dir, `${host}.log`), 'utf8')
          .trim()
          .split('\n');
        // The last two launches: the final check's runs.
        const [first, second] = log
          .filter((line) => line.startsWith('start '))
          .slice(-2)
          .map((line) => line.split(' ')[1]);
        const overlap = log.indexOf(`start ${second}`) < log.indexOf(`end ${first}`);
        assert.equal(overlap, host === 'final-ahead', log.join(', '));
        assert.ok(log.includes(`end ${second}`), log.join(', '));
        // Mid-way: the worker's launch, and ahead, the final check's first.
        assert.deepEqual(midway, host === 'final-ahead' ? ['start 1', `start ${first}`] : ['start 1']);
      }
    });

    test('refused or cut, a launch is made again, with the same result', async () => {
      const run = await reduceThere('flaky.py', ['flaky-1', 'flaky-2']);
      assert.equal(run.code, 0, run.stderr);
      assert.equal(fs.readFileSync(path.join(dir, 'flaky.py'), 'utf8'), here);
      // Lost launches were made again, and none was taken for a candidate's verdict.
      assert.ok(run.report.restarts > 0, `restarts: ${run.report.restarts}`);
      assert.equal(run.report.outcomes.crashed, 0);
      assert.deepEqual(run.report.droppedJobs, []);
      assert.equal(run.report.reproduced, true);
    });

    test('a host that goes down for good loses its job; the others end with the same result', async () => {
      const run = await reduceThere('dropped.py', ['down-4', 'up']);
      assert.equal(run.code, 0, run.stderr);
      assert.match(
        run.stderr,
        /job 1 \(down-4\) dropped: its runs could not be launched any more \(.*No route to host\)/,
      );
      assert.equal(fs.readFileSync(path.join(dir, 'dropped.py'), 'utf8'), here);
      assert.deepEqual(run.report.droppedJobs, [1]);
      assert.match(run.stderr, /final check: sh \S+ up python3 dropped\.py/);
      assert.equal(run.report.reproduced, true);
    });

    test('with no job left, the reduction stops with one line and the best program so far', async () => {
      const run = await reduceThere('stopped.py', ['down-30']);
      assert.equal(run.code, 2, run.stderr);
      assert.match(
        run.stderr,
        /^autodd: error: job 1 \(down-30\): its runs could not be launched any more .*no other job is left/m,
      );
      assert.doesNotMatch(run.stderr, /^\s+at /m);
      const kept = fs.readFileSync(path.join(dir, 'stopped.py'), 'utf8');
      assert.ok(kept.length < fs.readFileSync(path.join(dir, 'prog.py'), 'utf8').length);
      assert.match(runPython('stopped.py', dir).output, new RegExp(MSG));
    });
  });
});

describe(
  '--launcher through a real sshd',
  { skip: (!fs.existsSync(SSHD) && `${SSHD} is missing`) || (!HAVE_ENGINE && 'engine not built') },
  () => {
    const dir = tempDir();
    /** @type {import('node:child_process').ChildProcess} */
    let sshd;
    /** @type {string[]} */
    let launcher;
    let local = '';

    before(async () => {
      const port = await freePort();
      execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', path.join(dir, 'host_key')]);
      execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', path.join(dir, 'user_key')]);
      fs.copyFileSync(path.join(dir, 'user_key.pub'), path.join(dir, 'authorized_keys'));
      fs.writeFileSync(
        path.join(dir, 'sshd_config'),
        [
          `Port ${port}`,
          'ListenAddress 127.0.0.1',
          `HostKey ${path.join(dir, 'host_key')}`,
          `AuthorizedKeysFile ${path.join(dir, 'authorized_keys')}`,
          `PidFile ${path.join(dir, 'sshd.pid')}`,
          'StrictModes no',
          'PasswordAuthentication no',
          'KbdInteractiveAuthentication no',
          'UsePAM no',
          'PermitRootLogin prohibit-password',
          '',
        ].join('\n'),
      );
      // Privilege separation wants its folder; only root may make it, and only root needs it.
      if (process.getuid?.() === 0) fs.mkdirSync('/run/sshd', { recursive: true });
      sshd = spawn(SSHD, ['-D', '-e', '-f', path.join(dir, 'sshd_config')], { stdio: 'ignore' });
      launcher = [
        `ssh -p ${port} -i ${path.join(dir, 'user_key')}`,
        '-o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o LogLevel=ERROR -o BatchMode=yes {host}',
      ];
      const probe = ['-p', String(port), '-i', path.join(dir, 'user_key'), '-o', 'StrictHostKeyChecking=no'];
      probe.push('-o', 'UserKnownHostsFile=/dev/null', '-o', 'LogLevel=ERROR', '-o', 'BatchMode=yes');
      await waitFor(() => {
        try {
          execFileSync('ssh', [...probe, `${os.userInfo().username}@127.0.0.1`, 'true'], { stdio: 'ignore' });
          return true;
        } catch {
          return false;
        }
      }, 10_000);
      fs.copyFileSync(EXAMPLE, path.join(dir, 'prog.py'));
      local = await localResult();
    });

    after(() => {
      sshd?.kill();
    });

    /**
     * Reduces the example through ssh to two hosts (both this machine), -j 2.
     * @param {string} out
     * @param {(text: string, child: import('node:child_process').ChildProcess) => void} [onStderr]
     */
    const remote = (out, onStderr) =>
      runCli(
        ['prog.py', '--err-msg', MSG, '-o', out, '-j', '2', '--report', `${out}.json`].concat([
          '--launcher',
          launcher.join(' '),
          '--hosts',
          '127.0.0.1,localhost',
        ]),
        { cwd: dir, onStderr },
      );

    /** @param {string} out */
    const report = (out) => JSON.parse(fs.readFileSync(path.join(dir, `${out}.json`), 'utf8'));

    test('gives the result of a local reduction, checked there, and leaves nothing behind', async () => {
      const run = await remote('ssh.py');
      assert.equal(run.code, 0, run.stderr);
      assert.equal(fs.readFileSync(path.join(dir, 'ssh.py'), 'utf8'), local);
      assert.match(run.stderr, /final check: ssh .*127\.0\.0\.1 python3 ssh\.py/);
      assert.equal(report('ssh.py').reproduced, true);
      assert.equal(report('ssh.py').restarts, 0);
      await nothingLeft();
    });

    const small = tempDir();
    writeSmallProgram(small);
    const subproc = ['prog.py', '--err-msg', MSG, '--backend', 'subproc', '-j', '2'];
    /** @type {Promise<string> | undefined} the small program's local reduction */
    let smallHere;
    const smallLocal = () =>
      (smallHere ??= (async () => {
        const here = await runCli([...subproc, '-o', 'here.py'], { cwd: small });
        assert.equal(here.code, 0, here.stderr);
        return fs.readFileSync(path.join(small, 'here.py'), 'utf8');
      })());

    for (const kill of [false, true]) {
      const name = kill
        ? 'the subproc backend: a launch whose ssh session is killed is made again, with the same result'
        : 'the subproc backend runs each candidate through ssh, with the local result';
      test(name, async () => {
        const here = await smallLocal();
        const out = kill ? 'cut.py' : 'there.py';
        /** @type {number[]} */
        let killed = [];
        const started = Date.now();
        // Mid-reduction, every ssh client found: the launches under way are lost (and
        // those started ahead, which wait for their turn, are not used).
        const cutter = setInterval(() => {
          if (!kill || killed.length || Date.now() - started < 1500) return;
          killed = launched('ssh');
          for (const pid of killed) process.kill(pid, 'SIGKILL');
        }, 50);
        try {
          const hosts = ['--hosts', '127.0.0.1', '--ship', 'helpers.py', '--report', `${out}.json`];
          const there = await runCli([...subproc, '-o', out, '--launcher', launcher.join(' '), ...hosts], {
            cwd: small,
          });
          assert.equal(there.code, 0, there.stderr);
        } finally {
          clearInterval(cutter);
        }
        assert.equal(fs.readFileSync(path.join(small, out), 'utf8'), here);
        const { restarts, droppedJobs } = JSON.parse(
          fs.readFileSync(path.join(small, `${out}.json`), 'utf8'),
        );
        if (kill) {
          assert.ok(killed.length > 0, 'ssh sessions were killed');
          assert.ok(restarts >= 1, `restarts: ${restarts}`);
        } else {
          assert.equal(restarts, 0);
        }
        assert.deepEqual(droppedJobs, []);
        await nothingLeft();
      });
    }

    test('the subproc backend: Ctrl-C mid-reduction leaves nothing on either side', async () => {
      await smallLocal();
      const out = 'stopped.py';
      /** @type {import('node:child_process').ChildProcess | undefined} */
      let cli;
      let sent = false;
      const started = Date.now();
      // Mid-reduction, while a launch is out.
      const interrupter = setInterval(() => {
        if (sent || !cli || Date.now() - started < 1500 || launched('ssh').length === 0) return;
        sent = true;
        cli.kill('SIGINT');
      }, 50);
      try {
        const hosts = ['--hosts', '127.0.0.1', '--ship', 'helpers.py'];
        const run = await runCli([...subproc, '-o', out, '--launcher', launcher.join(' '), ...hosts], {
          cwd: small,
          onStderr: (_, child) => (cli = child),
        });
        assert.equal(sent, true, 'SIGINT was sent');
        assert.equal(run.code, 130, run.stderr);
      } finally {
        clearInterval(interrupter);
      }
      assert.match(runPython(out, small).output, new RegExp(MSG));
      await nothingLeft();
    });

    for (const [what, program] of /** @type {const} */ ([
      ['ssh session', 'ssh'],
      ['remote worker', 'python'],
    ])) {
      test(`a job that loses its ${what} mid-reduction is restarted, with the same result`, async () => {
        const out = `lost-${program}.py`;
        let killed = false;
        const run = await remote(out, (text) => {
          if (killed || (text.match(/accepted #/g) ?? []).length < 20) return;
          // The oldest: a session's ssh client, or a worker (its janitor, zygote and
          // candidates are its children, started later).
          const pid = oldestLaunched(program);
          if (pid === undefined) return;
          killed = true;
          process.kill(pid, 'SIGKILL');
        });
        assert.equal(killed, true, 'something was killed');
        assert.equal(run.code, 0, run.stderr);
        assert.equal(fs.readFileSync(path.join(dir, out), 'utf8'), local);
        assert.ok(report(out).restarts >= 1, `restarts: ${report(out).restarts}`);
        assert.deepEqual(report(out).droppedJobs, []);
        await nothingLeft();
      });
    }

    test('Ctrl-C mid-reduction keeps the best so far and leaves nothing on either side', async () => {
      const out = 'interrupted.py';
      let sent = false;
      const run = await remote(out, (text, child) => {
        if (sent || (text.match(/accepted #/g) ?? []).length < 10) return;
        sent = true;
        child.kill('SIGINT');
      });
      assert.equal(sent, true, 'SIGINT was sent');
      assert.equal(run.code, 130, run.stderr);
      // Interrupted before the end: smaller than the original, and it still fails.
      const kept = fs.readFileSync(path.join(dir, out), 'utf8');
      assert.ok(kept.length < fs.readFileSync(path.join(dir, 'prog.py'), 'utf8').length);
      assert.match(runPython(out, dir).output, new RegExp(MSG));
      assert.equal(report(out).interrupted, true);
      await nothingLeft();
    });
  },
);
