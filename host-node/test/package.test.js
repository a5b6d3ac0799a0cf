// The npm package as published: `npm pack`, installed into an empty project, reduces
// the bundled example with `npx autodd` there (the wasm engine and the Python files
// come from the tarball, not from this checkout).

import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { HAVE_ENGINE, HOST, tempDir } from './helpers.js';

const skip = HAVE_ENGINE ? false : 'the wasm engine is not built (scripts/build-wasm.sh nodejs)';

test('the packed tarball installs and reduces', { skip }, () => {
  const packs = tempDir();
  const out = execFileSync('npm', ['pack', '--silent', '--pack-destination', packs], {
    cwd: HOST,
    encoding: 'utf8',
  });
  const tarball = path.join(packs, out.trim().split('\n').pop() ?? '');
  const project = tempDir();
  fs.writeFileSync(path.join(project, 'package.json'), '{ "name": "user-project", "private": true }\n');
  execFileSync('npm', ['install', '--offline', '--no-audit', '--no-fund', '--silent', tarball], {
    cwd: project,
  });
  const example = path.join(HOST, '..', 'examples', 'autodd', 'tile_kernel_bug.py');
  fs.copyFileSync(example, path.join(project, 'bug.py'));
  const msg = 'T.gemm K shape check failed';
  execFileSync('npx', ['--offline', 'autodd', 'bug.py', '--err-msg', msg, '-o', 'min.py', '--quiet'], {
    cwd: project,
  });
  const result = fs.readFileSync(path.join(project, 'min.py'), 'utf8');
  const run = spawnSync('python3', ['min.py'], { cwd: project, encoding: 'utf8' });
  assert.ok(run.stderr.includes(msg), `min.py does not fail with MSG:\n${result}\n${run.stderr}`);
  const lines = (/** @type {string} */ text) => text.trim().split('\n').length;
  assert.ok(lines(result) * 5 < lines(fs.readFileSync(example, 'utf8')), result);
});
