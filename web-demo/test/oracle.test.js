import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';

import { EXAMPLES } from '../src/examples.js';
import { OracleError, compilePredicate, containsTextBody, containsTextOf } from '../src/oracle.js';

const root = new URL('../../', import.meta.url);

/** @param {import('../src/examples.js').Example} example */
function sourceOf(example) {
  // The page serves examples/autodd/ from the repository and the rest from web-demo/.
  const base = example.url.startsWith('examples/autodd/') ? root : new URL('../', import.meta.url);
  return readFileSync(new URL(example.url, base), 'utf8');
}

test('a body compiles to a boolean predicate over source', () => {
  const p = compilePredicate('return source.length > 3 && "yes";');
  assert.equal(p('abcd'), true);
  assert.equal(p('ab'), false);
});

test('a body that does not compile is an OracleError that says so', () => {
  assert.throws(
    () => compilePredicate('return (;'),
    (e) => {
      assert.ok(e instanceof OracleError);
      assert.match(e.message, /does not compile/);
      return true;
    },
  );
});

test('an empty body is refused', () => {
  assert.throws(() => compilePredicate('  \n'), OracleError);
});

test('a body that throws makes the call throw an OracleError', () => {
  const p = compilePredicate('return source.nope.length;');
  assert.throws(
    () => p('x'),
    (e) => e instanceof OracleError && /threw/.test(e.message),
  );
});

test('predicates run in strict mode', () => {
  const p = compilePredicate('undeclared = 1; return true;');
  assert.throws(() => p('x'), OracleError);
});

test('simple mode round-trips any text, quotes and newlines included', () => {
  for (const text of ['T.gemm(', 'say "hi"\n', "it's \\ odd", '']) {
    const body = containsTextBody(text);
    assert.equal(containsTextOf(body), text);
    const p = compilePredicate(body);
    assert.equal(p(`before ${text} after`), true);
  }
  assert.equal(compilePredicate(containsTextBody('needle'))('haystack'), false);
  assert.equal(containsTextOf('return true;'), null);
});

for (const example of EXAMPLES) {
  test(`example ${example.id}: its predicate holds on the program and not on a trivial one`, () => {
    const p = compilePredicate(example.predicate);
    assert.equal(p(sourceOf(example)), true);
    assert.equal(p('pass\n'), false);
  });
}

test('the tile-kernel predicate needs the mismatched tiles, not just any T.gemm', () => {
  const example = EXAMPLES.find((e) => e.id === 'tile-kernel');
  assert.ok(example);
  const p = compilePredicate(example.predicate);
  const source = sourceOf(example);
  assert.equal(
    p(source.replace('(block_K, block_N), dtype, name="B_shared"', '(block_N, block_K), dtype')),
    false,
  );
  assert.equal(p(source.replaceAll('transpose_B=True', 'transpose_B=False')), false);
  // autodd's printing (single quotes, no keyword arguments left) still counts.
  const reduced = [
    'def _check_dim():',
    "    raise DSLError(f'T.{op} {dim} shape check failed: {left} != {right}')",
    'A_shared = T.alloc_shared((block_M, block_K))',
    'B_shared = T.alloc_shared((block_K, block_N))',
    'T.gemm(A_shared, B_shared, transpose_B=True)',
  ].join('\n');
  assert.equal(p(reduced), true);
});
