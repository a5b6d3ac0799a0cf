import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { test } from 'node:test';

import { pythonTokens, stringRanges } from '../src/syntax.js';

import {
  frozenRanges,
  lineStarts,
  offsetOf,
  positionOf,
  segments,
  siteRanges,
  splitLines,
} from '../src/highlight.js';

// The Node build of the same engine, when it has been built (scripts/build-wasm.sh nodejs).
const nodePkg = new URL('../../host-node/pkg/autodd_wasm.js', import.meta.url);
const engine = existsSync(nodePkg) ? createRequire(import.meta.url)(nodePkg.pathname) : null;

test('splitLines ignores one final newline', () => {
  assert.deepEqual(splitLines(''), []);
  assert.deepEqual(splitLines('a\nb\n'), ['a', 'b']);
  assert.deepEqual(splitLines('a\n\n'), ['a', '']);
});

test('lineStarts and positions round-trip', () => {
  const text = 'ab\n\ncd\n';
  const starts = lineStarts(text);
  assert.deepEqual(starts, [0, 3, 4, 7]);
  for (let offset = 0; offset <= text.length; offset++) {
    assert.equal(offsetOf(starts, text.length, positionOf(starts, offset)), offset);
  }
});

test('columns count UTF-16 code units, as the engine reports them', () => {
  // '🧾' is two UTF-16 units; 'é' is one.
  const text = "x = 'é🧾' + total(order)\n";
  const starts = lineStarts(text);
  const from = offsetOf(starts, text.length, { line: 1, column: 13 });
  const to = offsetOf(starts, text.length, { line: 1, column: 25 });
  assert.equal(text.slice(from, to), 'total(order)');
});

test('positions past the end of a line or the text are clamped', () => {
  const text = 'ab\ncd';
  const starts = lineStarts(text);
  assert.equal(offsetOf(starts, text.length, { line: 1, column: 99 }), 2);
  assert.equal(offsetOf(starts, text.length, { line: 9, column: 1 }), 3);
  assert.equal(offsetOf(starts, text.length, { line: 2, column: 3 }), 5);
});

test('segments cover the text in order and know their sites, outermost first', () => {
  const text = 'if a:\n    b = 1\nc = 2\n';
  const sites = [
    { index: 0, start: { line: 1, column: 1 }, end: { line: 2, column: 10 } },
    { index: 1, start: { line: 2, column: 5 }, end: { line: 2, column: 10 } },
  ];
  const ranges = siteRanges(text, sites);
  assert.deepEqual(ranges, [
    { index: 0, from: 0, to: 15 },
    { index: 1, from: 10, to: 15 },
  ]);
  const segs = segments(text, ranges);
  assert.equal(segs.map((s) => text.slice(s.from, s.to)).join(''), text);
  assert.deepEqual(
    segs.map((s) => [text.slice(s.from, s.to), s.sites]),
    [
      ['if a:\n    ', [0]],
      ['b = 1', [0, 1]],
      ['\nc = 2\n', []],
    ],
  );
});

test('an empty text is one empty segment', () => {
  assert.deepEqual(segments('', []), [{ from: 0, to: 0, sites: [], frozen: false }]);
});

test('frozen: with __freeze__ blocks, __freeze__(…) calls and the import', () => {
  const text = [
    'from autodd import __freeze__',
    'with __freeze__:',
    '    x = 1',
    '    if x:',
    '        y = (2, ")")',
    'z = __freeze__(f(3, ")")) + 4',
    'w = 5',
    '',
  ].join('\n');
  const frozen = frozenRanges(text).map((r) => text.slice(r.from, r.to));
  assert.deepEqual(frozen, [
    'from autodd import __freeze__',
    'with __freeze__:\n    x = 1\n    if x:\n        y = (2, ")")',
    '__freeze__(f(3, ")"))',
  ]);
});

test('frozen block ends at the first line indented no deeper than its header', () => {
  const text = 'def f():\n    with __freeze__:\n        a = 1\n\n    b = 2\n';
  const frozen = frozenRanges(text).map((r) => text.slice(r.from, r.to));
  assert.deepEqual(frozen, ['with __freeze__:\n        a = 1']);
});

test('what a string that spans lines holds is text, not code, given its literals', () => {
  const text = [
    'with __freeze__:',
    '    q = """',
    'SELECT a',
    '"""',
    '    r = __freeze__("""x)',
    '""")',
    'note = """',
    'with __freeze__:',
    '    __freeze__(1)',
    '"""',
    'after = 1',
    '',
  ].join('\n');
  const strings = stringRanges(pythonTokens(text));
  const frozen = frozenRanges(text, strings).map((r) => text.slice(r.from, r.to));
  assert.deepEqual(frozen, ['with __freeze__:\n    q = """\nSELECT a\n"""\n    r = __freeze__("""x)\n""")']);
  // Without its literals the block would end at the string's first line.
  assert.notDeepEqual(
    frozenRanges(text).map((r) => text.slice(r.from, r.to)),
    frozen,
  );
});

test('a string is one literal across its escapes', () => {
  // The line after a backslash at the end of a line is in the string; so is a call after `\n`.
  const text = 's = """a\\\nwith __freeze__:\n    b"""\nt = \'\\n__freeze__(1)\'\n';
  const strings = stringRanges(pythonTokens(text));
  assert.deepEqual(
    strings.map((r) => text.slice(r.from, r.to)),
    ['"""a\\\nwith __freeze__:\n    b"""', "'\\n__freeze__(1)'"],
  );
  assert.deepEqual(frozenRanges(text, strings), []);
});

test(
  'with the engine: site ranges slice the normalized text at node boundaries, never in frozen code',
  { skip: !engine && 'host-node/pkg is not built' },
  () => {
    const source = readFileSync(new URL('../examples/frozen_unicode_bug.py', import.meta.url), 'utf8');
    const normalized = engine.normalize(source);
    const frozen = frozenRanges(normalized);
    assert.ok(frozen.length >= 1);
    let checked = 0;
    for (const rewrite of engine.rewriteNames()) {
      const sites = engine.listSites(source, rewrite);
      for (const range of siteRanges(normalized, sites)) {
        assert.ok(range.to > range.from, `${rewrite} #${range.index} is empty`);
        for (const f of frozen) {
          assert.ok(range.to <= f.from || range.from >= f.to, `${rewrite} #${range.index} is in frozen code`);
        }
        checked++;
      }
    }
    assert.ok(checked > 10);
    // A site after an astral character on its line: UTF-16 columns land on the call.
    const line = normalized.split('\n').findIndex((/** @type {string} */ l) => l.includes('🧾'));
    const calls = siteRanges(normalized, engine.listSites(source, 'call-fwd-arg1')).map((r) =>
      normalized.slice(r.from, r.to),
    );
    assert.ok(line >= 0);
    assert.ok(calls.includes('total(order)'), calls.join(' | '));
  },
);
