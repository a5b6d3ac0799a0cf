// The options are declared once (src/options.js): the parser takes every one of them,
// --help lists every one, and README's table is the one made from the declarations.

import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { parseCli } from '../src/cli.js';
import { helpText, markdownTable, OPTION_SPECS } from '../src/options.js';
import { HOST } from './helpers.js';

test("README's options table is the one src/options.js makes", () => {
  const readme = fs.readFileSync(path.join(HOST, '..', 'README.md'), 'utf8');
  const block = /<!-- options:start -->\n([\s\S]*?)\n<!-- options:end -->/.exec(readme);
  assert.ok(block, 'README.md has its options markers');
  assert.equal(block[1], markdownTable(), 'run `node scripts/options-table.mjs --write`');
});

/** A value `parseCli` takes for each option with a value. */
const SAMPLES = /** @type {Record<string, string>} */ ({
  backend: 'subproc',
  'launcher-shell': 'yes',
  'memory-limit': '100',
  python: 'python3.12',
  stdin: 'in.txt',
});

test('the parser takes every declared option, and --help lists each', () => {
  const help = helpText();
  for (const option of OPTION_SPECS) {
    assert.match(help, new RegExp(`--${option.name}\\b`));
    if (option.name === 'help' || option.name === 'version') continue;
    const args = ['p.py', '--err-msg', 'M', '-o', 'out.py', `--${option.name}`];
    if (option.value) args.push(SAMPLES[option.name] ?? '3');
    assert.doesNotThrow(() => parseCli(args), option.name);
  }
});

test('a value that starts with a dash is a value, unless it is an option', () => {
  const base = ['p.py', '-o', 'out.py'];
  const parsed = /** @type {Record<string, any>} */ (parseCli([...base, '--err-msg', '-> K mismatch']));
  assert.equal(parsed.errMsg, '-> K mismatch');
  // After `--`, everything is positional as written.
  const after = /** @type {Record<string, any>} */ (
    parseCli(['-o', 'out.py', '--err-msg', 'M', '--', '-p.py'])
  );
  assert.equal(after.source, '-p.py');
  assert.throws(
    () => parseCli([...base, '--err-msg', 'M', '-j', '--timeout', '3']),
    /^AutoddError: -j needs a value before the next option \(one that starts with "-" as --jobs=VALUE\)$/,
  );
});

test('every line of --help fits in 80 columns', () => {
  for (const line of helpText().split('\n')) assert.ok(line.length <= 80, line);
});

/**
 * The field names of `interface NAME { ... }` in a declaration file.
 * @param {string} file
 * @param {string} name
 */
function fieldsOf(file, name) {
  const text = fs.readFileSync(file, 'utf8');
  const body = new RegExp(`export interface ${name} \\{([\\s\\S]*?)\\n\\}`).exec(text);
  assert.ok(body, `${file} declares ${name}`);
  return new Set([...body[1].matchAll(/^ {2,4}(\w+)\??[:(]/gm)].map((m) => m[1]));
}

test('each option sets the reducePython() option it names, declared in index.d.ts', () => {
  const api = fieldsOf(path.join(HOST, 'index.d.ts'), 'ReducePythonOptions');
  const engine = fieldsOf(path.join(HOST, 'pkg', 'autodd_wasm.d.ts'), 'ReducerOptions');
  const base = ['p.py', '--err-msg', 'M', '-o', 'out.py'];
  const plain = /** @type {Record<string, any>} */ (parseCli(base));
  for (const option of OPTION_SPECS) {
    if (option.api === null) continue;
    const [head, field] = option.api.startsWith('engine.') ? ['engine', option.api.slice(7)] : [option.api];
    assert.ok(api.has(head), `index.d.ts: ReducePythonOptions has no ${head} (--${option.name})`);
    if (field) assert.ok(engine.has(field), `ReducerOptions has no ${field} (--${option.name})`);
    if (option.name === 'err-msg' || option.name === 'output') continue;
    const args = [...base, `--${option.name}`];
    if (option.value) args.push(SAMPLES[option.name] ?? '3');
    const parsed = /** @type {Record<string, any>} */ (parseCli(args));
    const at = (/** @type {Record<string, any>} */ o) => (field ? o[head][field] : o[head]);
    assert.notDeepEqual(at(parsed), at(plain), `--${option.name} does not change ${option.api}`);
  }
});

test('docs/options.md has a section for every option', () => {
  const docs = fs.readFileSync(path.join(HOST, '..', 'docs', 'options.md'), 'utf8');
  const headings = [...docs.matchAll(/^### (.*)$/gm)].map((m) => m[1]).join('\n');
  for (const option of OPTION_SPECS) {
    assert.match(headings, new RegExp(`\`(-\\w, )?--${option.name}\\b`), `docs/options.md: --${option.name}`);
  }
});

test('the error codes thrown are the ones index.d.ts lists, each thrown somewhere', () => {
  const declared = /export type HostErrorCode =([\s\S]*?);/.exec(
    fs.readFileSync(path.join(HOST, 'index.d.ts'), 'utf8'),
  );
  assert.ok(declared, 'index.d.ts declares HostErrorCode');
  const listed = new Set([...declared[1].matchAll(/\| '([a-z-]+)'/g)].map((m) => m[1]));
  const thrown = new Set();
  for (const dir of ['src', 'src/backends']) {
    for (const name of fs.readdirSync(path.join(HOST, dir)).filter((n) => n.endsWith('.js'))) {
      const text = fs.readFileSync(path.join(HOST, dir, name), 'utf8');
      for (const m of text.matchAll(/new AutoddError\(\s*'([a-z-]+)'/g)) thrown.add(m[1]);
    }
  }
  assert.deepEqual([...thrown].sort(), [...listed].sort());
});
