#!/usr/bin/env node
// Builds the demo into web-demo/dist/ for any static host: esbuild bundles the page's
// script and the reduction worker (each with the wasm package's JS; build that first
// with `scripts/build-wasm.sh web`), minified with source maps, beside the engine's
// .wasm file, the page, its stylesheet and the example programs (the tile-kernel one
// copied from the repository's examples/autodd/).
//
//   node web-demo/build.mjs [--out DIR]

import { cp, mkdir, readdir, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const here = path.dirname(fileURLToPath(import.meta.url));
const repoRoot = path.resolve(here, '..');

const outFlag = process.argv.indexOf('--out');
const out = path.resolve(outFlag !== -1 ? process.argv[outFlag + 1] : path.join(here, 'dist'));

const PKG_FILES = ['autodd_wasm.js', 'autodd_wasm_bg.wasm'];
const PYODIDE_FILES = [
  'pyodide.mjs',
  'pyodide.asm.mjs',
  'pyodide.asm.wasm',
  'python_stdlib.zip',
  'pyodide-lock.json',
];

for (const file of PKG_FILES) {
  try {
    await stat(path.join(here, 'pkg', file));
  } catch {
    console.error(`build: web-demo/pkg/${file} is missing; run scripts/build-wasm.sh web first`);
    process.exit(1);
  }
}

await rm(out, { recursive: true, force: true });
await mkdir(path.join(out, 'src'), { recursive: true });

// The page loads src/main.js, which compiles the engine (pkg/autodd_wasm_bg.wasm) and
// starts src/worker.js with it; src/worker.js starts src/python.js for Python in the
// browser, and the page src/check.js for its predicate.
await build({
  entryPoints: [
    path.join(here, 'src', 'main.js'),
    path.join(here, 'src', 'worker.js'),
    path.join(here, 'src', 'python.js'),
    path.join(here, 'src', 'check.js'),
  ],
  outdir: path.join(out, 'src'),
  bundle: true,
  format: 'esm',
  target: 'es2022',
  minify: true,
  sourcemap: true,
  logLevel: 'warning',
});
// The page compiles the engine from pkg/ (as in the sources) and hands it to the worker.
await mkdir(path.join(out, 'pkg'), { recursive: true });
await cp(path.join(here, 'pkg', 'autodd_wasm_bg.wasm'), path.join(out, 'pkg', 'autodd_wasm_bg.wasm'));
await cp(path.join(here, 'src', 'style.css'), path.join(out, 'src', 'style.css'));
await cp(path.join(here, 'index.html'), path.join(out, 'index.html'));
await cp(path.join(here, 'examples'), path.join(out, 'examples'), { recursive: true });
// Python in the browser: Pyodide's runtime (the npm package's files the page loads, all
// from this origin) and the runner's output scan, which python.js loads beside it.
await mkdir(path.join(out, 'pyodide'), { recursive: true });
for (const file of PYODIDE_FILES) {
  await cp(path.join(here, 'node_modules', 'pyodide', file), path.join(out, 'pyodide', file));
}
await mkdir(path.join(out, 'autodd_runner'), { recursive: true });
await cp(
  path.join(repoRoot, 'host-node', 'python', 'autodd_runner', 'scan.py'),
  path.join(out, 'autodd_runner', 'scan.py'),
);
await mkdir(path.join(out, 'freeze', 'autodd'), { recursive: true });
await cp(
  path.join(repoRoot, 'host-node', 'python', 'freeze', 'autodd', '__init__.py'),
  path.join(out, 'freeze', 'autodd', '__init__.py'),
);
await mkdir(path.join(out, 'examples', 'autodd'), { recursive: true });
await cp(
  path.join(repoRoot, 'examples', 'autodd', 'tile_kernel_bug.py'),
  path.join(out, 'examples', 'autodd', 'tile_kernel_bug.py'),
);

const files = await list(out);
console.log(`build: ${files.length} files in ${path.relative(process.cwd(), out) || '.'}`);

/**
 * @param {string} dir
 * @returns {Promise<string[]>}
 */
async function list(dir) {
  const entries = await readdir(dir, { withFileTypes: true });
  const nested = await Promise.all(
    entries.map((e) => (e.isDirectory() ? list(path.join(dir, e.name)) : [path.join(dir, e.name)])),
  );
  return nested.flat();
}
