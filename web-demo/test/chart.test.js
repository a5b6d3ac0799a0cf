import assert from 'node:assert/strict';
import { test } from 'node:test';

import {
  layoutChart,
  niceAxis,
  niceCeil,
  niceStep,
  scaleLinear,
  shortNumber,
  stepPath,
} from '../src/chart.js';

test('niceCeil rounds up to 1, 2 or 5 times a power of ten', () => {
  assert.deepEqual([1, 3, 7, 10, 11, 319, 10058, 0.3].map(niceCeil), [1, 5, 10, 10, 20, 500, 20000, 0.5]);
  assert.equal(niceCeil(0), 1);
  assert.equal(niceCeil(Number.NaN), 1);
});

test('niceStep adds 2.5 × 10^k from 25 up, never below the value', () => {
  assert.deepEqual(
    [2375, 3, 7, 24, 26, 30, 42.4, 80, 130, 0.3].map(niceStep),
    [2500, 5, 10, 25, 50, 50, 50, 100, 200, 0.5],
  );
  for (let v = 0.01; v < 1e6; v *= 1.37) assert.ok(niceStep(v) >= v * (1 - 1e-12), String(v));
});

test('niceAxis: a nice step and the first multiple of it that fits', () => {
  assert.deepEqual(niceAxis(212, 5), { max: 250, ticks: [0, 50, 100, 150, 200, 250] });
  assert.deepEqual(niceAxis(9500, 4), { max: 10000, ticks: [0, 2500, 5000, 7500, 10000] });
  assert.deepEqual(niceAxis(7, 4), { max: 8, ticks: [0, 2, 4, 6, 8] });
  assert.deepEqual(niceAxis(319, 4), { max: 400, ticks: [0, 100, 200, 300, 400] });
  assert.deepEqual(niceAxis(10, 5), { max: 10, ticks: [0, 2, 4, 6, 8, 10] });
  assert.deepEqual(niceAxis(0, 4), { max: 1, ticks: [0, 1] });
});

test('scaleLinear maps the domain onto the range, inverted axes included', () => {
  const sy = scaleLinear([0, 100], [200, 10]);
  assert.equal(sy(0), 200);
  assert.equal(sy(100), 10);
  assert.equal(sy(50), 105);
  assert.equal(scaleLinear([3, 3], [7, 9])(3), 7);
});

test('stepPath holds each value until the next point and extends to the end', () => {
  const id = (/** @type {number} */ v) => v;
  assert.equal(
    stepPath(
      [
        { x: 0, y: 10 },
        { x: 5, y: 4 },
      ],
      id,
      id,
      9,
    ),
    'M0,10H5V4H9',
  );
  assert.equal(stepPath([], id, id, 3), '');
});

test('layoutChart keeps every point inside the plot area', () => {
  const frame = { width: 600, height: 220, top: 12, right: 44, bottom: 36, left: 48 };
  const bytes = [
    { x: 0, y: 10058 },
    { x: 40, y: 5000 },
    { x: 367, y: 311 },
  ];
  const lines = [
    { x: 0, y: 319 },
    { x: 40, y: 150 },
    { x: 367, y: 8 },
  ];
  const model = layoutChart({ bytes, lines, tried: 367, frame });
  for (const path of [model.bytesPath, model.linesPath]) {
    const numbers = [...path.matchAll(/[MHV](-?[\d.]+)(?:,(-?[\d.]+))?/g)];
    assert.ok(numbers.length > 0);
    for (const m of path.matchAll(/H(-?[\d.]+)/g)) {
      const x = Number(m[1]);
      assert.ok(x >= frame.left && x <= frame.width - frame.right, `x ${x}`);
    }
    for (const m of path.matchAll(/V(-?[\d.]+)/g)) {
      const y = Number(m[1]);
      assert.ok(y >= frame.top && y <= frame.height - frame.bottom, `y ${y}`);
    }
  }
  // The first point sits at x = 0 on the left edge; the largest value under the top.
  assert.match(model.bytesPath, /^M48,/);
  assert.equal(model.xTicks[0].x, frame.left);
  assert.equal(model.xTicks[model.xTicks.length - 1].value, 400);
  assert.equal(model.xTicks[model.xTicks.length - 1].x, frame.width - frame.right);
  for (const axis of [model.bytesTicks, model.linesTicks]) {
    assert.ok(axis.every((t) => t.y >= frame.top && t.y <= frame.height - frame.bottom));
  }
  // Both y axes have the same number of intervals, so they share grid lines.
  assert.equal(model.bytesTicks.length, model.linesTicks.length);
});

test('an empty chart still has axes', () => {
  const frame = { width: 600, height: 220, top: 12, right: 44, bottom: 36, left: 48 };
  const model = layoutChart({ bytes: [], lines: [], tried: 0, frame });
  assert.equal(model.bytesPath, '');
  assert.ok(model.xTicks.length >= 2);
});

test('shortNumber', () => {
  assert.deepEqual([0, 950, 1000, 12500, 2_000_000].map(shortNumber), ['0', '950', '1k', '12.5k', '2M']);
});
