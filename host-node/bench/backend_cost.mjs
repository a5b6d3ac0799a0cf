#!/usr/bin/env node
// Benchmark (not a test): the per-candidate cost of the runner and subproc backends,
// for a trivial program and for one that imports heavy modules. Prints a table and
// writes it to bench/backend_cost.md.
//
//   node bench/backend_cost.mjs [--runs N]

import fs from 'node:fs';
import os from 'node:os';
import { parseArgs } from 'node:util';
import { createBackend } from '../src/backends/index.js';
import { Workspace } from '../src/python.js';
import { quantile } from './stats.mjs';

const { values } = parseArgs({ options: { runs: { type: 'string', default: '40' } } });
const RUNS = Number(values.runs);
const WARMUP = 3;

const HEAVY_MODULES = ['json', 'decimal', 'asyncio', 'email.mime.multipart', 'xml.dom.minidom'];
const PROGRAMS = {
  trivial: { source: 'print("BENCH-MSG")\n', preload: [] },
  'heavy imports': {
    source: `import ${HEAVY_MODULES.join(', ')}\nprint("BENCH-MSG")\n`,
    preload: HEAVY_MODULES,
  },
};
// Isolated (the default) and not, side by side: what isolation costs per candidate.
// With prefork (the default at -j 1 on two CPUs) a candidate's process isolates
// itself while the one before runs.
const SETUPS = [
  { label: 'runner', backend: 'runner', preload: true, sandbox: true, prefork: false },
  { label: 'runner, --no-sandbox', backend: 'runner', preload: true, sandbox: false, prefork: false },
  { label: 'runner, prefork', backend: 'runner', preload: true, sandbox: true, prefork: true },
  { label: 'runner, prefork, --no-sandbox', backend: 'runner', preload: true, sandbox: false, prefork: true },
  { label: 'runner, --no-preload', backend: 'runner', preload: false, sandbox: true, prefork: false },
  { label: 'subproc', backend: 'subproc', preload: false, sandbox: true, prefork: false },
  { label: 'subproc, --no-sandbox', backend: 'subproc', preload: false, sandbox: false, prefork: false },
];

const rows = [];
for (const [programName, program] of Object.entries(PROGRAMS)) {
  for (const setup of SETUPS) {
    if (setup.label.includes('no-preload') && program.preload.length === 0) continue;
    const workspace = await Workspace.create({ python: 'python3', jobs: 1, sandbox: setup.sandbox });
    if (setup.sandbox && !workspace.isolated)
      throw new Error(`no isolation here: ${workspace.sandboxProblem}`);
    const backend = createBackend(/** @type {'runner' | 'subproc'} */ (setup.backend), {
      workspace,
      needle: 'BENCH-MSG',
      timeoutMs: 30_000,
      jobs: 1,
      preload: setup.preload ? program.preload : [],
      prefork: setup.prefork,
    });
    const first = performance.now();
    const check = await backend.run(program.source);
    const firstMs = performance.now() - first;
    if (!check.found) throw new Error(`${setup.label}: the program did not print its message`);
    for (let i = 1; i < WARMUP; i++) await backend.run(program.source);
    const times = [];
    for (let i = 0; i < RUNS; i++) {
      const t = performance.now();
      await backend.run(program.source);
      times.push(performance.now() - t);
    }
    await backend.close();
    workspace.close();
    const mean = times.reduce((a, b) => a + b, 0) / times.length;
    const row = {
      program: programName,
      backend: setup.label,
      firstMs,
      meanMs: mean,
      medianMs: quantile(times, 0.5),
      p90Ms: quantile(times, 0.9),
    };
    rows.push(row);
    console.log(
      `${row.program.padEnd(14)} ${row.backend.padEnd(30)} first ${row.firstMs.toFixed(1).padStart(7)} ms` +
        `  median ${row.medianMs.toFixed(1).padStart(6)} ms  p90 ${row.p90Ms.toFixed(1).padStart(6)} ms`,
    );
  }
}

// Where a runner candidate's CPU goes (Linux: read from /proc), for a program that
// ends in a traceback, as most candidates of a reduction do. The worker's wakeups per
// run are the count behind reading output only when the candidate is done.
const TRACEBACK = [
  'def f(n):',
  '    if n == 0:',
  '        raise ValueError("BENCH-MSG")',
  '    return f(n - 1)',
  'print("computing")',
  'f(5)',
  '',
].join('\n');
const CPU_RUNS = RUNS * 10;
/** @type {string[]} */
const cpuLines = [];
if (process.platform === 'linux') {
  /** @param {number} pid @returns {number[]} [own ticks, reaped children's ticks] */
  const ticks = (pid) => {
    const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return [Number(fields[11]) + Number(fields[12]), Number(fields[13]) + Number(fields[14])];
  };
  /** @param {number} pid */
  const wakeups = (pid) =>
    Number(/\nvoluntary_ctxt_switches:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]);
  /** @param {number} pid @returns {number[]} */
  const children = (pid) =>
    fs
      .readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8')
      .trim()
      .split(/\s+/)
      .filter(Boolean)
      .map(Number);
  const workspace = await Workspace.create({ python: 'python3', jobs: 1 });
  const backend = /** @type {import('../src/backends/runner.js').RunnerBackend} */ (
    createBackend('runner', { workspace, needle: 'BENCH-MSG', timeoutMs: 30_000, jobs: 1 })
  );
  for (let i = 0; i < WARMUP; i++) await backend.run(TRACEBACK);
  const worker = Number(backend.workers[0]?.proc.pid);
  // Isolated, the worker's child waits for the zygote, the first process of a PID
  // namespace of its own (see sandbox.own_pids).
  const first = children(worker)[0];
  const zygote = first && workspace.isolated ? (children(first)[0] ?? first) : first;
  const tick = 1000 / 100; // ms per clock tick (USER_HZ)
  const snapshot = () => ({
    node: process.cpuUsage(),
    worker: ticks(worker)[0],
    zygote: zygote ? ticks(zygote) : [0, 0],
    wakeups: wakeups(worker),
  });
  const a = snapshot();
  for (let i = 0; i < CPU_RUNS; i++) await backend.run(TRACEBACK);
  const b = snapshot();
  await backend.close();
  workspace.close();
  const per = (/** @type {number} */ x) => (x / CPU_RUNS).toFixed(2);
  const nodeMs = (b.node.user + b.node.system - a.node.user - a.node.system) / 1000;
  cpuLines.push(
    `Where a runner candidate's CPU goes: ${CPU_RUNS} runs of a program that prints a line and`,
    'a 7-frame traceback; CPU milliseconds per run, from /proc (10 ms ticks, so averages).',
    '',
    '| host (node) | worker | zygote (fork) | candidate | worker wakeups per run |',
    '| ---: | ---: | ---: | ---: | ---: |',
    `| ${per(nodeMs)} | ${per((b.worker - a.worker) * tick)} | ${per((b.zygote[0] - a.zygote[0]) * tick)} |` +
      ` ${per((b.zygote[1] - a.zygote[1]) * tick)} | ${per(b.wakeups - a.wakeups)} |`,
    '',
  );
  console.log(cpuLines.join('\n'));
}

const python = (await Workspace.create({ python: 'python3', jobs: 1 })).info.version;
const lines = [
  '# Backend cost per candidate',
  '',
  'Generated by `node bench/backend_cost.mjs` (in host-node/); figures are wall time per',
  `candidate, sequential, ${RUNS} runs after ${WARMUP} warm-up runs. "first" includes starting`,
  'the worker (and its preloading) for the runner backend.',
  '',
  `Machine: ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'CPU'}, ${os.platform()} ${os.release()},` +
    ` Node ${process.version}, Python ${python}, ${new Date().toISOString().slice(0, 10)}.`,
  '',
  `Heavy imports: \`import ${HEAVY_MODULES.join(', ')}\`.`,
  '',
  '| program | backend | first (ms) | median (ms) | p90 (ms) | mean (ms) |',
  '| --- | --- | ---: | ---: | ---: | ---: |',
  ...rows.map(
    (r) =>
      `| ${r.program} | ${r.backend} | ${r.firstMs.toFixed(1)} | ${r.medianMs.toFixed(1)} |` +
      ` ${r.p90Ms.toFixed(1)} | ${r.meanMs.toFixed(1)} |`,
  ),
  '',
  ...cpuLines,
];
const out = new URL('./backend_cost.md', import.meta.url);
fs.writeFileSync(out, lines.join('\n'));
console.log(`wrote ${out.pathname}`);
