// --gpus: a GPU per job. No GPU is needed: the programs report the variables they see.

import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { createBackend } from '../src/backends/index.js';
import { jobDevices, machineGpus, onDevice, parseGpus } from '../src/devices.js';
import { Workspace } from '../src/python.js';
import { BACKENDS, fixture, HAVE_ENGINE, runCli, tempDir } from './helpers.js';

/** A program that says which devices it sees, after a pause that keeps its job busy. */
const REPORT = `import os, time
time.sleep(0.3)
print("DEV", *(os.environ.get(v, "-") for v in ("CUDA_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES")))
`;

/**
 * A directory holding an `nvidia-smi` that prints `text` (or fails without it).
 * @param {string | null} text
 */
function fakeSmi(text) {
  const dir = tempDir();
  const body = text === null ? 'exit 9' : `printf '%s' '${text}'`;
  fs.writeFileSync(path.join(dir, 'nvidia-smi'), `#!/bin/sh\n${body}\n`, { mode: 0o755 });
  return dir;
}

describe('--gpus: which devices', () => {
  test('a list names devices by index or UUID; bad lists are usage errors', () => {
    assert.deepEqual(parseGpus('0,1, 3'), ['0', '1', '3']);
    assert.deepEqual(parseGpus(['GPU-8f2c1a', 'MIG-1']), ['GPU-8f2c1a', 'MIG-1']);
    assert.deepEqual(parseGpus('MIG-GPU-8f2c1a/1/0'), ['MIG-GPU-8f2c1a/1/0']);
    for (const bad of ['', '0,,1', '0;1', '0,0', 'a b', 'garbage', '-1', 'gpu0']) {
      assert.throws(() => parseGpus(bad), { code: 'usage' }, bad);
    }
  });

  test('auto reads the visibility variables, then nvidia-smi -L', () => {
    const none = { PATH: fakeSmi(null) };
    assert.deepEqual(machineGpus({ ...none, CUDA_VISIBLE_DEVICES: '2,3' }), ['2', '3']);
    assert.deepEqual(machineGpus({ ...none, CUDA_VISIBLE_DEVICES: ' ', ROCR_VISIBLE_DEVICES: '1' }), ['1']);
    const smi = fakeSmi('GPU 0: NVIDIA A100 (UUID: GPU-aa)\nGPU 1: NVIDIA A100 (UUID: GPU-bb)\n');
    assert.deepEqual(machineGpus({ PATH: smi }), ['0', '1']);
    assert.deepEqual(machineGpus(none), []);
    assert.throws(() => parseGpus('auto', none), { code: 'usage', message: /--gpus auto found no GPU/ });
    // Through a launcher the jobs' GPUs are the other side's: this machine's say nothing.
    assert.throws(() => parseGpus('auto', { PATH: smi }, true), {
      code: 'usage',
      message: /^--gpus auto reads this machine's GPUs, not those where --launcher runs the jobs/,
    });
    assert.deepEqual(parseGpus('0,1', none, true), ['0', '1']);
    // As CUDA reads them: up to the first entry that is not a device, which hides the rest.
    assert.deepEqual(machineGpus({ ...none, CUDA_VISIBLE_DEVICES: '0,-1,2' }), ['0']);
    assert.deepEqual(machineGpus({ ...none, CUDA_VISIBLE_DEVICES: 'GPU-aa,MIG-bb/1/2' }), [
      'GPU-aa',
      'MIG-bb/1/2',
    ]);
    assert.deepEqual(machineGpus({ ...none, CUDA_VISIBLE_DEVICES: 'NoDevFiles' }), []);
    assert.throws(() => parseGpus('auto', { ...none, CUDA_VISIBLE_DEVICES: '-1' }), {
      code: 'usage',
      message: /^--gpus auto found no GPU: CUDA_VISIBLE_DEVICES='-1' shows none;/,
    });
  });

  test('jobs take the devices round-robin and see only their own', () => {
    assert.deepEqual(jobDevices(['0', '1'], 3), ['0', '1', '0']);
    assert.deepEqual(jobDevices(['0', '1', '2'], 2), ['0', '1']);
    const env = onDevice({ PATH: '/bin', HIP_VISIBLE_DEVICES: '5' }, '1');
    assert.deepEqual(env, {
      PATH: '/bin',
      CUDA_VISIBLE_DEVICES: '1',
      ROCR_VISIBLE_DEVICES: '1',
      HIP_VISIBLE_DEVICES: '0',
    });
    assert.equal(onDevice(env, undefined), env);
  });
});

for (const backend of BACKENDS) {
  describe(`--gpus, ${backend} backend`, () => {
    test('two jobs run on two devices at once, each seeing only its own', async () => {
      const workspace = await Workspace.create({ python: 'python3', jobs: 2, devices: ['0', '1'] });
      const runner = createBackend(backend, { workspace, needle: 'DEV', timeoutMs: 20_000, jobs: 2 });
      try {
        const runs = await Promise.all([runner.run(REPORT), runner.run(REPORT)]);
        const seen = runs.map((r) => {
          assert.equal(r.found, true, r.stderrTail);
          const [cuda, rocr, hip] = r.stdoutTail.trim().split(' ').slice(1);
          assert.equal(rocr, cuda, 'ROCr sees the same device');
          assert.equal(hip, '0', 'HIP picks the one device ROCr leaves');
          return cuda;
        });
        assert.deepEqual(seen.sort(), ['0', '1']);
      } finally {
        await runner.close();
        workspace.close();
      }
    });
  });
}

describe('--gpus on the command line', { skip: !HAVE_ENGINE && 'engine not built' }, () => {
  // Fails only on one device, as a kernel whose bug shows on a GPU would.
  const program = `import os
one = os.environ.get("CUDA_VISIBLE_DEVICES") in ("0", "1") and os.environ.get("HIP_VISIBLE_DEVICES") == "0"
unused = [1, 2, 3]
if one:
    raise ValueError("KERNEL-BUG on one device")
`;

  /**
   * Reduces the program in `dir` with `-j 2 --gpus 0,1` (and `extra`) where no device is
   * visible otherwise, and checks it ended with each job on its device and a result
   * that reproduced on one.
   * @param {string} dir
   * @param {string[]} [extra]
   */
  const reduceOnTwoDevices = async (dir, extra = []) => {
    const args = ['prog.py', '--err-msg', 'KERNEL-BUG', '-o', 'out.py', '-j', '2', '--gpus', '0,1'];
    const run = await runCli([...args, '--report', 'r.json', ...extra], {
      cwd: dir,
      env: { CUDA_VISIBLE_DEVICES: '' },
    });
    assert.equal(run.code, 0, run.stderr);
    const report = JSON.parse(fs.readFileSync(path.join(dir, 'r.json'), 'utf8'));
    assert.deepEqual(report.gpus, { devices: ['0', '1'], jobs: ['0', '1'] });
    assert.equal(report.reproduced, true, 'the final check ran on a device');
    assert.doesNotMatch(fs.readFileSync(path.join(dir, 'out.py'), 'utf8'), /unused/);
    return run;
  };

  test('the original, every candidate and the final check run on a device; report and progress say which', async () => {
    const run = await reduceOnTwoDevices(fixture({ 'prog.py': program }));
    assert.match(run.stderr, /GPUs: job 1 → 0, job 2 → 1/);
  });

  test('through --launcher each host starts its job on its device, the final check too', async () => {
    const dir = fixture({ 'prog.py': program });
    // A launcher that runs the worker here and notes which device each host was given.
    fs.writeFileSync(
      path.join(dir, 'launch.sh'),
      [
        'host=$1; shift',
        'for word in "$@"; do',
        '  case $word in CUDA_VISIBLE_DEVICES=*) echo "$host $word" >> started.log;; esac',
        'done',
        'exec "$@"',
        '',
      ].join('\n'),
    );
    await reduceOnTwoDevices(dir, ['--launcher', 'sh launch.sh {host}', '--hosts', 'a,b']);
    const started = new Set(fs.readFileSync(path.join(dir, 'started.log'), 'utf8').trim().split('\n'));
    assert.deepEqual([...started].sort(), ['a CUDA_VISIBLE_DEVICES=0', 'b CUDA_VISIBLE_DEVICES=1']);
  });

  test('more jobs than devices share them, with a warning; a bad list is one line and exit 2', async () => {
    const dir = fixture({ 'prog.py': program });
    const shared = await runCli(
      ['prog.py', '--err-msg', 'KERNEL-BUG', '-o', 'out.py', '-j', '3', '--gpus', '1', '--report', 'r.json'],
      { cwd: dir },
    );
    assert.equal(shared.code, 0, shared.stderr);
    assert.match(shared.stderr, /warning: 3 jobs share 1 GPU round-robin: job 1 → 1, job 2 → 1, job 3 → 1/);
    const report = JSON.parse(fs.readFileSync(path.join(dir, 'r.json'), 'utf8'));
    assert.deepEqual(report.gpus.jobs, ['1', '1', '1']);

    const bad = await runCli(['prog.py', '--err-msg', 'KERNEL-BUG', '-o', 'bad.py', '--gpus', '0,,1'], {
      cwd: dir,
    });
    assert.equal(bad.code, 2);
    assert.equal(bad.stderr.trim().split('\n').length, 1, bad.stderr);
    assert.match(bad.stderr, /--gpus takes device indices/);
    assert.equal(fs.existsSync(path.join(dir, 'bad.py')), false);
  });
});
