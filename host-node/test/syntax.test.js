// A program autodd's parser refuses: what the user's interpreter says about it. A real
// syntax error in CPython's words; valid code in newer syntax (PEP 701 f-strings, PEP
// 696 defaults) named with its line, column, PEP and what to do. Runs the interpreters
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

const PY312 = pyenv('3.12');
const PY313 = pyenv('3.13');

/**
 * What python/autodd_syntax.py answers for `source`.
 * @param {string} python
 * @param {string} source
 */
function explain(python, source) {
  const run = spawnSync(python, [path.join(PYTHON_DIR, 'autodd_syntax.py'), '1', '1'], {
    input: source,
    encoding: 'utf8',
  });
  assert.equal(run.status, 0, run.stderr);
  return JSON.parse(run.stdout);
}

describe('syntax the parser refuses', { skip: !HAVE_ENGINE && 'engine not built' }, () => {
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
    'a PEP 701 f-string is named, with its line and what to do',
    { skip: !PY312 && 'no pyenv Python 3.12' },
    async () => {
      const dir = tempDir();
      const source =
        'names = ["a", "b"]\nprint(f"names: {", ".join(names)}")\nraise ValueError(f"bad value {len(names)}")\n';
      fs.writeFileSync(path.join(dir, 'a.py'), source);
      const python = /** @type {string} */ (PY312);
      const run = await runCli(['a.py', '--err-msg', 'bad value', '-o', 'out.py', '--python', python], {
        cwd: dir,
      });
      assert.equal(run.code, 2, run.stderr);
      assert.match(
        run.stderr,
        /^autodd: error: a\.py: line 2, column 7: an f-string with quotes, .* \(PEP 701, Python 3\.12\) is valid for python3 \(Python 3\.12\.\d+\), but autodd's parser reads Python 3\.11's grammar: write the inner string with the other kind of quote/,
      );
      assert.equal(run.stderr.trim().split('\n').length, 1, run.stderr);
      assert.equal(fs.existsSync(path.join(dir, 'out.py')), false);
    },
  );

  test('a PEP 696 type parameter default is named', { skip: !PY313 && 'no pyenv Python 3.13' }, async () => {
    const dir = tempDir();
    fs.writeFileSync(
      path.join(dir, 'b.py'),
      'def first[T = int](xs: list[T]) -> T:\n    return xs[0]\nraise ValueError("boom")\n',
    );
    const python = /** @type {string} */ (PY313);
    const run = await runCli(['b.py', '--err-msg', 'boom', '-o', 'out.py', '--python', python], { cwd: dir });
    assert.equal(run.code, 2, run.stderr);
    assert.match(run.stderr, /line 1, column 11: a default for a type parameter \(PEP 696, Python 3\.13\)/);
  });

  test(
    'which f-strings need Python 3.12, as the interpreter reads them',
    { skip: !PY312 && 'no pyenv Python 3.12' },
    () => {
      const python = /** @type {string} */ (PY312);
      /** @type {[string, boolean][]} */
      const cases = [
        ['x = f"{a!r:>{width}}" + f"{b}"\n', false],
        ['x = f"{a:#x}" + f\'{"q"}\'\n', false],
        ['x = f"{"q"}"\n', true],
        ['x = f"{\'a\\n\'}"\n', true],
        ['x = f"""{\n  a # a comment\n}"""\n', true],
        ['x = f"{\n  a\n}"\n', true],
        ['x = f"{a:{"#"}x}"\n', true],
        ['x = f"""{a}\n{b}"""\n', false],
      ];
      for (const [source, newer] of cases) {
        const answer = explain(python, source);
        assert.equal(answer.accepted, true, source);
        assert.equal(answer.construct !== null, newer, `${JSON.stringify(source)}: ${answer.construct}`);
        if (newer) assert.equal(answer.pep, 701);
      }
    },
  );
});
