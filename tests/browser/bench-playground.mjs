// What the playground costs with Python in the browser, against the CLI on the same
// machine: time to interactive, time until Python is ready, time to reduce the
// tile-kernel example in the page, the same reduction with `autodd` (runner, -j 1),
// and what the page downloads (Pyodide's files among them, as sent and gzipped).
//
//   cd tests/browser && node bench-playground.mjs [--repeat 2]
//
// Runs the bundle in web-demo/dist (node web-demo/build.mjs first) in Debian's
// chromium. Prints a table and writes bench/results/playground-<date>.md and .json.

import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

import { chromium } from 'playwright-core';

import { startServer } from '../../web-demo/serve.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const dist = path.join(root, 'web-demo', 'dist');
const EXAMPLE = path.join(root, 'examples', 'autodd', 'tile_kernel_bug.py');
const NEEDLE = 'T.gemm K shape check failed';
const at = process.argv.indexOf('--repeat');
const repeat = at > 0 ? Number(process.argv[at + 1]) : 2;

/** One fresh page: its timings, and every response's path and size. */
async function pageRun() {
  const server = await startServer({ port: 0, quiet: true, dir: dist });
  const profile = mkdtempSync(path.join(tmpdir(), 'autodd-bench-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: '/usr/bin/chromium',
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run'],
  });
  try {
    const page = context.pages()[0] ?? (await context.newPage());
    /** @type {string[]} */
    const fetched = [];
    page.on('requestfinished', (request) => fetched.push(new URL(request.url()).pathname));
    const started = Date.now();
    await page.goto(server.url);
    await page.waitForSelector('body[data-ready="true"]', { timeout: 60_000 });
    const interactive = Date.now() - started;
    await page.selectOption('#oracle-mode', 'python');
    await page.locator('#speed').fill('4');
    const play = Date.now();
    await page.click('#play');
    await page.waitForFunction(
      () => document.querySelector('#python-info')?.textContent?.startsWith('Python'),
      null,
      {
        timeout: 120_000,
      },
    );
    const pythonReady = Date.now() - play;
    await page.waitForSelector('#panel-reduce[data-state="done"]', { timeout: 600_000 });
    const reduced = Date.now() - play;
    const status = (await page.textContent('#run-status')) ?? '';
    const python = (await page.getAttribute('#python-info', 'data-python')) ?? '';
    return { interactive, pythonReady, reduced, status, python, fetched };
  } finally {
    await context.close();
    await server.close();
    rmSync(profile, { recursive: true, force: true });
  }
}

/** The same reduction with the CLI, runner backend, -j 1. */
function cliRun() {
  const dir = mkdtempSync(path.join(tmpdir(), 'autodd-bench-cli-'));
  try {
    copyFileSync(EXAMPLE, path.join(dir, 'bug.py'));
    const started = Date.now();
    const run = spawnSync(
      'node',
      [
        path.join(root, 'host-node', 'bin', 'autodd.js'),
        'bug.py',
        '--err-msg',
        NEEDLE,
        '-o',
        'min.py',
        '--quiet',
      ],
      { cwd: dir, encoding: 'utf8' },
    );
    if (run.status !== 0) throw new Error(`autodd failed: ${run.stderr}`);
    return {
      ms: Date.now() - started,
      lines: readFileSync(path.join(dir, 'min.py'), 'utf8').split('\n').length - 1,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** @param {number[]} xs */
const best = (xs) => Math.min(...xs);

const pages = [];
const clis = [];
for (let i = 0; i < repeat; i++) {
  pages.push(await pageRun());
  clis.push(cliRun());
}
const fetched = [...new Set(pages[0].fetched)];
const sizes = fetched
  .map((p) => path.join(dist, p === '/' ? 'index.html' : p))
  .filter((file) => {
    try {
      return statSync(file).isFile();
    } catch {
      return false;
    }
  })
  .map((file) => {
    const data = readFileSync(file);
    return { file: path.relative(dist, file), bytes: data.length, gzip: gzipSync(data).length };
  });
const pyodide = sizes.filter((s) => s.file.startsWith('pyodide'));
const sum = (/** @type {{ bytes: number, gzip: number }[]} */ list, /** @type {'bytes' | 'gzip'} */ key) =>
  list.reduce((a, s) => a + s[key], 0);
const mb = (/** @type {number} */ n) => `${(n / 1e6).toFixed(1)} MB`;
const sec = (/** @type {number} */ ms) => `${(ms / 1000).toFixed(1)} s`;

const date = new Date().toISOString().slice(0, 10);
const rows = [
  '| figure | value |',
  '| --- | --- |',
  `| time to interactive (engine loaded, example shown) | ${sec(best(pages.map((p) => p.interactive)))} |`,
  `| Play → Python ready (${pages[0].python}, Pyodide) | ${sec(best(pages.map((p) => p.pythonReady)))} |`,
  `| tile-kernel example, Python in the browser (Play → done) | ${sec(best(pages.map((p) => p.reduced)))} |`,
  `| the same with \`autodd\` (runner, -j 1, whole command) | ${sec(best(clis.map((c) => c.ms)))} |`,
  `| page / CLI | ${(best(pages.map((p) => p.reduced)) / best(clis.map((c) => c.ms))).toFixed(1)}× |`,
  `| downloaded in all (as served / gzipped) | ${mb(sum(sizes, 'bytes'))} / ${mb(sum(sizes, 'gzip'))} |`,
  `| of which Pyodide (${pyodide.length} files) | ${mb(sum(pyodide, 'bytes'))} / ${mb(sum(pyodide, 'gzip'))} |`,
];
const text =
  `# tests/browser/bench-playground.mjs, ${date}\n\n` +
  `Fastest of ${repeat} runs each, alternating page and CLI, on this machine. Page: ${pages[0].status}\n\n` +
  `${rows.join('\n')}\n`;
console.log(text);
const out = path.join(root, 'bench', 'results', `playground-${date}`);
writeFileSync(`${out}.md`, text);
writeFileSync(`${out}.json`, `${JSON.stringify({ date, pages, clis, sizes }, null, 1)}\n`);
console.error(`wrote ${path.relative(process.cwd(), `${out}.md`)}`);
