// The npm package as published: `npm pack`, installed into an empty project, runs a
// reduction with its own `autodd` command (the wasm engine and the Python files
// included).

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
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
  fs.writeFileSync(
    path.join(project, 'bug.py'),
    'import json\nunused = [1, 2, 3]\ndef check(k):\n    if k % 16:\n        raise ValueError(f"tile {k} is not a multiple of 16")\ncheck(24)\n',
  );
  const bin = path.join(project, 'node_modules', '.bin', 'autodd');
  execFileSync(bin, ['bug.py', '--err-msg', 'not a multiple of 16', '-o', 'min.py', '--quiet'], {
    cwd: project,
  });
  const result = fs.readFileSync(path.join(project, 'min.py'), 'utf8');
  assert.match(result, /not a multiple of 16/);
  assert.doesNotMatch(result, /unused/);
});
