import assert from 'node:assert/strict';
import { test } from 'node:test';

import { diffCounts, diffLines, splitLines } from '../src/diff.js';

/**
 * The old and new texts a diff describes.
 * @param {import('../src/diff.js').DiffLine[]} diff
 */
function sides(diff) {
  const old = diff.filter((l) => l.op !== 'add').map((l) => l.text);
  const now = diff.filter((l) => l.op !== 'del').map((l) => l.text);
  return { old, now };
}

test('splitLines ignores one final newline', () => {
  assert.deepEqual(splitLines(''), []);
  assert.deepEqual(splitLines('a\nb\n'), ['a', 'b']);
  assert.deepEqual(splitLines('a\n\n'), ['a', '']);
});

test('identical texts are all "same", numbered on both sides', () => {
  const diff = diffLines('a\nb\nc\n', 'a\nb\nc\n');
  assert.deepEqual(
    diff.map((l) => [l.op, l.oldLine, l.newLine]),
    [
      ['same', 1, 1],
      ['same', 2, 2],
      ['same', 3, 3],
    ],
  );
});

test('a removed block keeps the lines around it and their numbers', () => {
  const diff = diffLines('def f():\n    x = 1\n    y = 2\n    return x\n', 'def f():\n    return x\n');
  assert.deepEqual(
    diff.map((l) => `${l.op} ${l.oldLine ?? '-'} ${l.newLine ?? '-'} ${l.text.trim()}`),
    ['same 1 1 def f():', 'del 2 - x = 1', 'del 3 - y = 2', 'same 4 2 return x'],
  );
  assert.deepEqual(diffCounts(diff), { added: 0, deleted: 2 });
});

test('a replaced line reads as removal then addition', () => {
  const diff = diffLines('a\nif x:\n    b\nc\n', 'a\nb\nc\n');
  assert.deepEqual(
    diff.map((l) => `${l.op}:${l.text}`),
    ['same:a', 'del:if x:', 'del:    b', 'add:b', 'same:c'],
  );
});

test('the diff is a longest common subsequence', () => {
  const diff = diffLines('x\na\nb\nc\ny\n', 'a\nq\nb\nc\n');
  assert.equal(diff.filter((l) => l.op === 'same').length, 3);
  assert.deepEqual(sides(diff), { old: ['x', 'a', 'b', 'c', 'y'], now: ['a', 'q', 'b', 'c'] });
});

test('empty sides', () => {
  assert.deepEqual(diffCounts(diffLines('', 'a\nb\n')), { added: 2, deleted: 0 });
  assert.deepEqual(diffCounts(diffLines('a\nb\n', '')), { added: 0, deleted: 2 });
  assert.deepEqual(diffLines('', ''), []);
});

test('random edits: both texts are recovered and numbering is consecutive', () => {
  let seed = 42;
  const rand = (/** @type {number} */ n) => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed % n;
  };
  for (let round = 0; round < 200; round++) {
    const a = Array.from({ length: rand(12) }, () => 'abcde'[rand(5)]);
    const b = a.filter(() => rand(3) !== 0);
    if (rand(2)) b.splice(rand(b.length + 1), 0, 'z');
    const diff = diffLines(a.join('\n'), b.join('\n'));
    assert.deepEqual(sides(diff), { old: a, now: b });
    const newNumbers = diff.filter((l) => l.op !== 'del').map((l) => l.newLine);
    assert.deepEqual(
      newNumbers,
      b.map((_, i) => i + 1),
    );
    const oldNumbers = diff.filter((l) => l.op !== 'add').map((l) => l.oldLine);
    assert.deepEqual(
      oldNumbers,
      a.map((_, i) => i + 1),
    );
  }
});

test('a huge middle falls back to delete-then-add and stays correct', () => {
  const a = Array.from({ length: 2500 }, (_, i) => `a${i}`);
  const b = Array.from({ length: 2500 }, (_, i) => `b${i}`);
  const diff = diffLines(['head', ...a, 'tail'].join('\n'), ['head', ...b, 'tail'].join('\n'));
  assert.deepEqual(diffCounts(diff), { added: 2500, deleted: 2500 });
  assert.equal(diff[0].op, 'same');
  assert.equal(diff[diff.length - 1].op, 'same');
});
