#!/usr/bin/env node
// Benchmark (not a test): the per-candidate time of the runner, one job forking ahead
// (what -j 1 does on two CPUs), for a trivial program, in several host trees side by
// side. Rounds alternate the trees, so the machine's drift hits each alike; prints
// each round, then each tree's median and best, and its median over the first tree's.
// Finer than bench/ab for a change to the worker or the zygote: it times candidates
// alone, without the engine's search around them.
//
//   node bench/trees_cost.mjs [--runs N] [--rounds N] [--no-sandbox] TREE...
//
// A TREE is a host-node folder with its engine built: this one, or the export of a
// commit that `bench/ab --base REV` builds in bench/.cache/ab/REV/host-node.

import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { median } from './stats.mjs';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    runs: { type: 'string', default: '300' },
    rounds: { type: 'string', default: '10' },
    'no-sandbox': { type: 'boolean', default: false },
  },
});
const RUNS = Number(values.runs);
const ROUNDS = Number(values.rounds);
const trees = [...new Set(positionals)];
if (trees.length === 0 || !(RUNS >= 1) || !(ROUNDS >= 1)) {
  console.error('trees_cost: name one host-node folder or more; --runs and --rounds are 1 or more');
  process.exit(2);
}
const sandbox = !values['no-sandbox'];
const MSG = 'BENCH-MSG';

/** @param {string} tree */
async function load(tree) {
  const root = pathToFileURL(path.resolve(tree)).href;
  const { createBackend } = await import(`${root}/src/backends/index.js`);
  const { Workspace } = await import(`${root}/src/python.js`);
  return { createBackend, Workspace };
}

/** The mean milliseconds per candidate of RUNS candidates, after a few to warm up, and
 * whether they ran isolated. @param {string} tree */
async function round(tree) {
  const { createBackend, Workspace } = await load(tree);
  const workspace = await Workspace.create({ python: 'python3', jobs: 1, sandbox });
  const backend = createBackend('runner', {
    workspace,
    needle: MSG,
    timeoutMs: 4000,
    jobs: 1,
    prefork: true,
  });
  try {
    for (let i = 0; i < 5; i++) await backend.run(`print("${MSG}")\n`);
    const start = performance.now();
    for (let i = 0; i < RUNS; i++) {
      const result = await backend.run(`x = ${i}\nprint("${MSG}")\n`);
      if (!result.found) throw new Error(`${tree}: a candidate did not print its message`);
    }
    return { ms: (performance.now() - start) / RUNS, isolated: workspace.isolated };
  } finally {
    await backend.close();
    workspace.close();
  }
}

/** @type {Map<string, number[]>} */
const times = new Map(trees.map((tree) => [tree, []]));
console.log(`${RUNS} candidates a round, ${ROUNDS} rounds${sandbox ? '' : ', --no-sandbox'}`);
for (let r = 0; r < ROUNDS; r++) {
  // Each round starts with another tree, so none always follows the same one.
  for (const tree of [...trees.slice(r % trees.length), ...trees.slice(0, r % trees.length)]) {
    const { ms, isolated } = await round(tree);
    times.get(tree)?.push(ms);
    console.log(`round ${r + 1}  ${ms.toFixed(3)} ms  ${isolated ? 'isolated' : 'unisolated'}  ${tree}`);
  }
}
const first = median(times.get(trees[0]) ?? []);
console.log('\n| tree | median (ms) | best (ms) | median / first |');
console.log('| --- | ---: | ---: | ---: |');
for (const [tree, xs] of times) {
  const m = median(xs);
  console.log(`| ${tree} | ${m.toFixed(3)} | ${Math.min(...xs).toFixed(3)} | ${(m / first).toFixed(3)} |`);
}
