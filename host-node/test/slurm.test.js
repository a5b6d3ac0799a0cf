// --launcher through Slurm: a one-node cluster this test starts itself (munged,
// slurmctld and slurmd on 127.0.0.1, with a configuration and a key it writes; Debian's
// slurmctld, slurmd, slurm-client and munge, which scripts/setup-launchers.sh installs).
// Slurm's daemons run as root here, so the test needs root.

import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { EXAMPLE, HAVE_ENGINE, processesWithMark, runCli, tempDir, waitFor } from './helpers.js';

const DAEMONS = ['/usr/sbin/munged', '/usr/sbin/slurmctld', '/usr/sbin/slurmd'];
const MSG = 'K shape check failed';

/** Two ports nobody listens on now. */
async function freePorts() {
  const servers = [net.createServer(), net.createServer()];
  await Promise.all(
    servers.map((s) => new Promise((resolve) => s.listen(0, '127.0.0.1', () => resolve(undefined)))),
  );
  const ports = servers.map((s) => /** @type {net.AddressInfo} */ (s.address()).port);
  await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
  return ports;
}

const skip =
  (process.getuid?.() !== 0 && 'Slurm daemons need root') ||
  (DAEMONS.some((d) => !fs.existsSync(d)) && `${DAEMONS.join(', ')} not all installed`) ||
  (!HAVE_ENGINE && 'engine not built');

describe('--launcher through a one-node Slurm cluster', { skip }, () => {
  const dir = tempDir();
  const conf = path.join(dir, 'slurm.conf');
  /** The environment that points Slurm's commands at this cluster. */
  const env = { SLURM_CONF: conf };

  before(async () => {
    const [ctld, slurmd] = await freePorts();
    for (const sub of ['state', 'spool', 'log']) fs.mkdirSync(path.join(dir, sub));
    fs.writeFileSync(path.join(dir, 'munge.key'), crypto.randomBytes(1024), { mode: 0o600 });
    execFileSync('/usr/sbin/munged', [
      '--force',
      `--key-file=${path.join(dir, 'munge.key')}`,
      `--socket=${path.join(dir, 'munge.sock')}`,
      `--pid-file=${path.join(dir, 'munged.pid')}`,
      `--log-file=${path.join(dir, 'munged.log')}`,
      `--seed-file=${path.join(dir, 'munge.seed')}`,
    ]);
    const host = os.hostname();
    fs.writeFileSync(
      conf,
      [
        'ClusterName=autoddtest',
        `SlurmctldHost=${host}(127.0.0.1)`,
        `SlurmctldPort=${ctld}`,
        `SlurmdPort=${slurmd}`,
        'AuthType=auth/munge',
        'CredType=cred/munge',
        `AuthInfo=socket=${path.join(dir, 'munge.sock')}`,
        'SlurmUser=root',
        'SlurmdUser=root',
        `StateSaveLocation=${path.join(dir, 'state')}`,
        `SlurmdSpoolDir=${path.join(dir, 'spool')}`,
        `SlurmctldPidFile=${path.join(dir, 'slurmctld.pid')}`,
        `SlurmdPidFile=${path.join(dir, 'slurmd.pid')}`,
        `SlurmctldLogFile=${path.join(dir, 'log', 'slurmctld.log')}`,
        `SlurmdLogFile=${path.join(dir, 'log', 'slurmd.log')}`,
        'ProctrackType=proctrack/linuxproc',
        'TaskPlugin=task/none',
        'SchedulerType=sched/builtin',
        // Cores, not whole nodes (nor their memory): two jobs share the node.
        'SelectType=select/cons_tres',
        'SelectTypeParameters=CR_Core',
        'ReturnToService=2',
        'MpiDefault=none',
        `NodeName=${host} NodeAddr=127.0.0.1 CPUs=2 State=UNKNOWN`,
        `PartitionName=debug Nodes=${host} Default=YES MaxTime=INFINITE State=UP`,
        '',
      ].join('\n'),
    );
    execFileSync('/usr/sbin/slurmctld', ['-f', conf], { env: { ...process.env, ...env } });
    execFileSync('/usr/sbin/slurmd', ['-f', conf], { env: { ...process.env, ...env } });
    await waitFor(() => {
      const sinfo = spawnSync('sinfo', ['-h', '-o', '%t'], {
        env: { ...process.env, ...env },
        encoding: 'utf8',
      });
      return sinfo.stdout.trim() === 'idle';
    }, 30_000);
  });

  after(async () => {
    for (const pidFile of ['slurmd.pid', 'slurmctld.pid', 'munged.pid']) {
      let pid = 0;
      try {
        pid = Number(fs.readFileSync(path.join(dir, pidFile), 'utf8').trim());
        process.kill(pid, 'SIGTERM');
      } catch {
        continue; // not running
      }
      // Gone, or a zombie nobody reaps (a daemon's parent is whatever pid 1 is here).
      const alive = () => {
        try {
          return fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.[0] !== 'Z';
        } catch {
          return false;
        }
      };
      await waitFor(() => !alive(), 10_000).catch(() => process.kill(pid, 'SIGKILL'));
    }
  });

  /** The Slurm jobs running or waiting now, oldest first. */
  const jobs = () => {
    const squeue = spawnSync('squeue', ['-h', '-o', '%i'], {
      env: { ...process.env, ...env },
      encoding: 'utf8',
    });
    assert.equal(squeue.status, 0, squeue.stderr);
    return squeue.stdout
      .split('\n')
      .filter(Boolean)
      .map(Number)
      .sort((a, b) => a - b);
  };

  /**
   * Reduces the example through srun, two jobs; `onStderr` sees what it printed so far.
   * @param {string} out
   * @param {(text: string) => void} [onStderr]
   */
  const reduceThroughSrun = async (out, onStderr) => {
    fs.copyFileSync(EXAMPLE, path.join(dir, 'prog.py'));
    local ??= await runCli(['prog.py', '--err-msg', MSG, '-o', 'local.py', '-j', '2'], { cwd: dir });
    assert.equal(local.code, 0, local.stderr);
    const run = await runCli(
      ['prog.py', '--err-msg', MSG, '-o', out, '-j', '2', '--report', `${out}.json`].concat([
        '--launcher',
        'srun --nodes=1 --ntasks=1 --quiet',
      ]),
      { cwd: dir, env, onStderr },
    );
    assert.equal(run.code, 0, run.stderr);
    assert.equal(
      fs.readFileSync(path.join(dir, out), 'utf8'),
      fs.readFileSync(path.join(dir, 'local.py'), 'utf8'),
    );
    assert.match(run.stderr, new RegExp(`final check: srun --nodes=1 --ntasks=1 --quiet python3 ${out}`));
    // Every job step ended with the reduction.
    await waitFor(() => jobs().length === 0, 10_000);
    return JSON.parse(fs.readFileSync(path.join(dir, `${out}.json`), 'utf8'));
  };
  /** @type {{ code: number | null, stderr: string } | undefined} the local reduction's run */
  let local;

  test('srun starts the workers; the result is the local one, checked through srun', async () => {
    const report = await reduceThroughSrun('srun.py');
    assert.equal(report.reproduced, true);
    assert.equal(report.restarts, 0);
  });

  for (const [presses, title] of /** @type {const} */ ([
    [1, 'Ctrl-C while the workers wait in the queue takes their jobs out of it'],
    [2, 'a second Ctrl-C, which does not wait, still takes the jobs out of the queue'],
  ])) {
    test(title, async () => {
      const slurm = { env: { ...process.env, ...env }, encoding: /** @type {const} */ ('utf8') };
      // A job that takes the node's two CPUs: the workers' jobs wait behind it.
      const holder = Number(
        execFileSync(
          'sbatch',
          ['--parsable', '-c', '2', '--output', '/dev/null', '--wrap', 'sleep 600'],
          slurm,
        ).trim(),
      );
      try {
        await waitFor(
          () => spawnSync('squeue', ['-h', '-j', String(holder), '-o', '%t'], slurm).stdout.trim() === 'R',
          30_000,
        );
        fs.copyFileSync(EXAMPLE, path.join(dir, 'prog.py'));
        /** @type {import('node:child_process').ChildProcess | undefined} */
        let cli;
        const run = runCli(
          ['prog.py', '--err-msg', MSG, '-o', 'queued.py', '-j', '2', '--timeout', '120'].concat([
            '--launcher',
            'srun --nodes=1 --ntasks=1 --quiet',
          ]),
          { cwd: dir, env, onStart: (child) => (cli = child) },
        );
        await waitFor(() => jobs().length === 3, 30_000);
        cli?.kill('SIGINT');
        if (presses === 2) {
          // Apart, or the two signals merge into one; well before srun is done ending.
          await new Promise((resolve) => setTimeout(resolve, 20));
          cli?.kill('SIGINT');
        }
        const { code, stderr, mark } = await run;
        assert.equal(code, 130, stderr);
        assert.doesNotMatch(stderr, /did not start/);
        // Killed outright, a waiting srun leaves its job in the queue, to start later.
        await waitFor(() => jobs().join() === String(holder), 10_000);
        // Nor is any srun (or what ends them after a second Ctrl-C) left running.
        await waitFor(() => processesWithMark(mark).length === 0, 10_000);
      } finally {
        execFileSync('scancel', [String(holder)], slurm);
        // A cleanup that fails must not hide a failure above.
        await waitFor(() => jobs().length === 0, 30_000).catch(() => {});
      }
    });
  }

  test('a job cancelled mid-reduction (a preempted step) is started again, with the same result', async () => {
    let cancelled = false;
    const report = await reduceThroughSrun('preempted.py', (text) => {
      if (cancelled || (text.match(/accepted #/g) ?? []).length < 10) return;
      const [oldest] = jobs();
      if (oldest === undefined) return;
      cancelled = true;
      execFileSync('scancel', [String(oldest)], { env: { ...process.env, ...env } });
    });
    assert.equal(cancelled, true, 'a job was cancelled');
    assert.equal(report.reproduced, true);
    assert.ok(report.restarts >= 1, `restarts: ${report.restarts}`);
    assert.deepEqual(report.droppedJobs, []);
  });
});
