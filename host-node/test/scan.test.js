// The output scan of both backends against one table of cases: the JS scan (the
// subproc backend's) and its Python twin in the runner's worker (autodd_runner/scan.py) must both give each
// case's expected answer. Then real python3 tracebacks, scanned as they come.

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { OutputScan } from '../src/backends/scan.js';
import { PYTHON_DIR } from '../src/python.js';
import { HOST, fixture } from './helpers.js';

/**
 * @typedef {object} ScanCase
 * @property {string} name
 * @property {string} needle
 * @property {string[]} chunks what the program wrote, in the reads it arrived in
 * @property {boolean} own
 * @property {boolean} anywhere
 * @property {string | null} exception
 * @property {string | null} msgLine
 */

/** @type {ScanCase[]} */
const CASES = JSON.parse(fs.readFileSync(path.join(HOST, 'test', 'fixtures', 'output-scan.json'), 'utf8'));

/**
 * @param {string} needle
 * @param {Buffer[]} chunks
 */
function scanJs(needle, chunks) {
  const scan = new OutputScan(Buffer.from(needle));
  for (const chunk of chunks) scan.feed(chunk);
  scan.end();
  return { own: scan.found, anywhere: scan.anywhere.found, exception: scan.exception, msgLine: scan.msgLine };
}

/** The worker's OutputScan over every case, in one python3 process. */
function scanPython() {
  const script = `
import json, sys
sys.path.insert(0, sys.argv[1])
from autodd_runner.scan import OutputScan
out = []
for case in json.load(sys.stdin):
    scan = OutputScan(case["needle"].encode())
    for chunk in case["chunks"]:
        scan.feed(chunk.encode())
    scan.end()
    out.append({"own": scan.own.found, "anywhere": scan.anywhere.found,
                "exception": scan.exception, "msgLine": scan.msg_line})
print(json.dumps(out))
`;
  const text = execFileSync('python3', ['-c', script, PYTHON_DIR], { input: JSON.stringify(CASES) });
  return JSON.parse(text.toString());
}

describe('output scan', () => {
  const python = scanPython();
  CASES.forEach((c, i) => {
    test(c.name, () => {
      const expected = { own: c.own, anywhere: c.anywhere, exception: c.exception, msgLine: c.msgLine };
      assert.deepEqual(
        scanJs(
          c.needle,
          c.chunks.map((s) => Buffer.from(s)),
        ),
        expected,
        'JS',
      );
      assert.deepEqual(python[i], expected, 'Python');
    });
  });

  test('every split of a traceback into two reads gives the same answer', () => {
    const c = CASES[1];
    const whole = Buffer.from(c.chunks.join(''));
    for (let at = 0; at <= whole.length; at++) {
      const got = scanJs(c.needle, [whole.subarray(0, at), whole.subarray(at)]);
      assert.deepEqual(
        got,
        { own: false, anywhere: true, exception: 'NameError', msgLine: null },
        `split at ${at}`,
      );
    }
  });

  test('real tracebacks of python3: quoted lines left out, the type kept', () => {
    const dir = fixture({
      'echo.py': 'def check():\n    assert k_a == k_b, f"K shape check failed: {1}"\ncheck()\n',
      'real.py': 'def check(a, b):\n    assert a == b, f"K shape check failed: {a} != {b}"\ncheck(1, 2)\n',
      'syntax.py': 'x = 1\nraise ValueError("bad header"\n',
    });
    /** @param {string} name */
    const stderrOf = (name) => {
      try {
        execFileSync('python3', [path.join(dir, name)], { stdio: ['ignore', 'ignore', 'pipe'] });
      } catch (err) {
        return /** @type {{ stderr: Buffer }} */ (err).stderr;
      }
      throw new Error(`${name} did not fail`);
    };
    assert.deepEqual(scanJs('K shape check failed', [stderrOf('echo.py')]), {
      own: false,
      anywhere: true,
      exception: 'NameError',
      msgLine: null,
    });
    const real = scanJs('K shape check failed', [stderrOf('real.py')]);
    assert.equal(real.own, true);
    assert.equal(real.exception, 'AssertionError');
    assert.equal(real.msgLine, 'AssertionError: K shape check failed: 1 != 2');
    const syntax = scanJs('bad header', [stderrOf('syntax.py')]);
    assert.deepEqual([syntax.own, syntax.anywhere, syntax.exception], [false, true, 'SyntaxError']);
  });
});
