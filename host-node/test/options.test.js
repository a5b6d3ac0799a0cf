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

test('the parser takes every declared option, and --help lists each', () => {
  const help = helpText();
  for (const option of OPTION_SPECS) {
    assert.match(help, new RegExp(`--${option.name}\\b`));
    if (option.name === 'help' || option.name === 'version') continue;
    const args = ['p.py', '--err-msg', 'M', '-o', 'out.py', `--${option.name}`];
    if (option.value) args.push(option.name === 'backend' ? 'subproc' : '3');
    assert.doesNotThrow(() => parseCli(args), option.name);
  }
});

test('every line of --help fits in 80 columns', () => {
  for (const line of helpText().split('\n')) assert.ok(line.length <= 80, line);
});
