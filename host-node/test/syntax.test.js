// Newer syntax: the programs of fixtures/newer-syntax/ (PEP 701 f-strings, PEP 695
// type parameters) reduce under the interpreter they were written for, and a program
// autodd refuses is explained by the user's interpreter: a real syntax error in
// CPython's words, valid code in a construct autodd cannot reduce yet (a PEP 696
// default) named with its line, column, PEP and what to do. Runs the interpreters
// pyenv holds beside the system's python3 (3.12 and 3.13 on CI's machines).

import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, test } from 'node:test';
import { PYTHON_DIR } from '../src/python.js';
import { HAVE_ENGINE, runCli, tempDir } from './helpers.js';

/**
 * The newest pyenv interpreter of `minor` (3.12, 3.13), if there is one.
 * @param {string} minor
 */
function pyenv(minor) {
  let root = path.join(os.homedir(), '.pyenv');
  try {
    root = execFileSync('pyenv', ['root'], { encoding: 'utf8' }).trim();
  } catch {
    // No pyenv command: its default folder, if any.
  }
  const versions = path.join(root, 'versions');
  if (!fs.existsSync(versions)) return undefined;
  const found = fs
    .readdirSync(versions)
    .filter((v) => v.startsWith(`${minor}.`))
    .sort((a, b) => Number(a.split('.')[2]) - Number(b.split('.')[2]))
    .map((v) => path.join(versions, v, 'bin', 'python3'))
    .filter((p) => fs.existsSync(p));
  return found.at(-1);
}

/** An interpreter older than PEP 695: pyenv's 3.11, else the system's python3 if it is older. */
const PY311 =
  pyenv('3.11') ??
  (spawnSync('python3', ['-c', 'import sys; sys.exit(sys.version_info >= (3, 12))']).status === 0
    ? 'python3'
    : undefined);
const PY312 = pyenv('3.12');
const PY313 = pyenv('3.13');

const CORPUS = path.join(path.dirname(new URL(import.meta.url).pathname), 'fixtures', 'newer-syntax');

/**
 * A corpus program and what its header says: `# python: 3.X`, then `# err-msg: MSG`
 * (it reduces; with `# reduced-to: LINE`, to that one line) or `# refused: TEXT`
 * (autodd names the construct it cannot reduce).
 * @param {string} name
 */
function corpusCase(name) {
  const source = fs.readFileSync(path.join(CORPUS, name), 'utf8');
  const header = (/** @type {string} */ key) => source.match(new RegExp(`^# ${key}: (.*)$`, 'm'))?.[1];
  return {
    source,
    minor: header('python') ?? '',
    msg: header('err-msg'),
    reducedTo: header('reduced-to'),
    refused: header('refused'),
  };
}

describe('newer syntax, and syntax autodd refuses', { skip: !HAVE_ENGINE && 'engine not built' }, () => {
  test('a real syntax error is said in CPython words, on one line', async () => {
    const dir = tempDir();
    fs.writeFileSync(path.join(dir, 'bad.py'), 'def f(:\n    pass\n');
    const run = await runCli(['bad.py', '--err-msg', 'boom', '-o', 'out.py'], { cwd: dir });
    assert.equal(run.code, 2, run.stderr);
    assert.match(
      run.stderr,
      /^autodd: error: bad\.py: syntax error at line 1, column 7: .* \(python3 \(Python 3\.\d+\.\d+\) refuses it too\)\n$/,
    );
  });

  test(
    'an interpreter too old for the program is named, on one line',
    { skip: !PY311 && 'no Python older than 3.12' },
    async () => {
      const dir = tempDir();
      const { source, msg } = corpusCase('pep695_type_params.py');
      fs.writeFileSync(path.join(dir, 'generic.py'), source);
      const args = ['generic.py', '--err-msg', /** @type {string} */ (msg), '-o', 'out.py'];
      for (const backend of ['runner', 'subproc']) {
        const run = await runCli([...args, '--python', /** @type {string} */ (PY311), '--backend', backend], {
          cwd: dir,
        });
        assert.equal(run.code, 2, run.stderr);
        assert.match(
          run.stderr,
          /^autodd: error: \S*python3 \(Python 3\.1[01]\.\d+\) cannot compile generic\.py \(line \d+: SyntaxError: invalid syntax\), so none of it ran: if it needs a newer Python, name one with --python\n$/,
        );
        assert.equal(fs.existsSync(path.join(dir, 'out.py')), false);
      }
    },
  );

  for (const name of fs
    .readdirSync(CORPUS)
    .filter((f) => f.endsWith('.py'))
    .sort()) {
    const { source, minor, msg, reducedTo, refused } = corpusCase(name);
    const python = pyenv(minor);
    test(
      `${name} ${msg ? 'reduces' : 'is refused by name'} under Python ${minor}`,
      { skip: !python && `no pyenv Python ${minor}` },
      async () => {
        const dir = tempDir();
        fs.writeFileSync(path.join(dir, name), source);
        const args = [
          name,
          '--err-msg',
          msg ?? 'never',
          '-o',
          'out.py',
          '--python',
          /** @type {string} */ (python),
        ];
        const run = await runCli(args, { cwd: dir });
        if (refused) {
          assert.equal(run.code, 2, run.stderr);
          assert.ok(run.stderr.includes(refused), run.stderr);
          assert.match(
            run.stderr,
            /is valid for python3 \(Python 3\.\d+\.\d+\), but autodd cannot reduce it yet: /,
          );
          assert.equal(run.stderr.trim().split('\n').length, 1, run.stderr);
          assert.equal(fs.existsSync(path.join(dir, 'out.py')), false);
          return;
        }
        assert.equal(run.code, 0, run.stderr);
        const out = fs.readFileSync(path.join(dir, 'out.py'), 'utf8');
        assert.ok(out.split('\n').length * 3 < source.split('\n').length, out);
        if (reducedTo !== undefined) assert.equal(out, `${reducedTo}\n`);
        // The result fails the same way under the interpreter it was made for.
        const check = spawnSync(/** @type {string} */ (python), ['out.py'], { cwd: dir, encoding: 'utf8' });
        assert.ok(`${check.stdout}${check.stderr}`.includes(/** @type {string} */ (msg)), check.stderr);
      },
    );
  }
});
