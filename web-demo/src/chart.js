// The geometry of the size chart: best program size (bytes and lines) against the
// number of candidates tried. Pure numbers and SVG path strings; main.js puts them
// into an inline <svg>.

/**
 * @typedef {{ x: number, y: number }} Point
 * @typedef {{ width: number, height: number, top: number, right: number, bottom: number, left: number }} Frame
 * @typedef {object} ChartModel
 * @property {string} bytesPath step line of the best size in bytes (left axis)
 * @property {string} linesPath step line of the best size in lines (right axis)
 * @property {Array<{ value: number, x: number }>} xTicks
 * @property {Array<{ value: number, y: number }>} bytesTicks
 * @property {Array<{ value: number, y: number }>} linesTicks
 * @property {Frame} frame
 */

/**
 * The smallest "nice" number (1, 2 or 5 times a power of ten) at least `value`.
 * @param {number} value
 * @returns {number}
 */
export function niceCeil(value) {
  if (!(value > 0) || !Number.isFinite(value)) return 1;
  const power = 10 ** Math.floor(Math.log10(value));
  for (const step of [1, 2, 5, 10]) {
    // The epsilon keeps 3 * 10^k from rounding up past itself.
    if (step * power >= value * (1 - 1e-12)) return step * power;
  }
  return 10 * power;
}

/**
 * The smallest tick step at least `value` among 1, 2, 2.5 and 5 times a power of ten;
 * 2.5 only from 25 up, so that counts (lines, candidates) keep whole ticks.
 * @param {number} value
 * @returns {number}
 */
export function niceStep(value) {
  const step = niceCeil(value);
  // 2.5 × 10^k sits between 2 and 5 × 10^k: half of a step of 5 × 10^k.
  const half = step / 2;
  const isFive = Math.abs(step / 10 ** Math.floor(Math.log10(step)) - 5) < 1e-9;
  return isFive && half >= value && half >= 25 ? half : step;
}

/**
 * An axis from 0 that fits `value`: a nice step (1, 2 or 5 times a power of ten) for
 * about `count` intervals, and the smallest multiple of it at least `value`.
 * @param {number} value
 * @param {number} count
 * @returns {{ max: number, ticks: number[] }}
 */
export function niceAxis(value, count) {
  if (!(value > 0) || !Number.isFinite(value)) return { max: 1, ticks: [0, 1] };
  const step = niceStep(value / Math.max(count, 1));
  const n = Math.max(1, Math.ceil(value / step - 1e-9));
  const ticks = [];
  for (let i = 0; i <= n; i++) ticks.push(Math.round(i * step * 1e6) / 1e6);
  return { max: ticks[n], ticks };
}

/**
 * A linear map from [d0, d1] onto [r0, r1]; a degenerate domain maps to r0.
 * @param {[number, number]} domain
 * @param {[number, number]} range
 * @returns {(v: number) => number}
 */
export function scaleLinear([d0, d1], [r0, r1]) {
  if (d1 === d0) return () => r0;
  const k = (r1 - r0) / (d1 - d0);
  return (v) => r0 + (v - d0) * k;
}

/**
 * An SVG path that holds each value until the next point (sizes change only when a
 * candidate is accepted), extended to `xEnd`.
 * @param {Point[]} points sorted by x
 * @param {(x: number) => number} sx
 * @param {(y: number) => number} sy
 * @param {number} xEnd
 * @returns {string}
 */
export function stepPath(points, sx, sy, xEnd) {
  if (points.length === 0) return '';
  const r = (/** @type {number} */ v) => Math.round(v * 10) / 10;
  let d = `M${r(sx(points[0].x))},${r(sy(points[0].y))}`;
  for (let i = 1; i < points.length; i++) {
    d += `H${r(sx(points[i].x))}V${r(sy(points[i].y))}`;
  }
  const last = Math.max(xEnd, points[points.length - 1].x);
  return d + `H${r(sx(last))}`;
}

/**
 * Lays out the chart.
 * @param {object} input
 * @param {Point[]} input.bytes best size in bytes after x candidates, x ascending
 * @param {Point[]} input.lines best size in lines after x candidates, x ascending
 * @param {number} input.tried candidates tried so far (the x extent)
 * @param {Frame} input.frame
 * @returns {ChartModel}
 */
export function layoutChart({ bytes, lines, tried, frame }) {
  const xAxis = niceAxis(Math.max(tried, 10), 5);
  const bytesAxis = niceAxis(Math.max(1, ...bytes.map((p) => p.y)), 4);
  // The lines axis gets the same number of intervals, so both share the grid lines.
  const intervals = bytesAxis.ticks.length - 1;
  const linesMax = Math.max(1, ...lines.map((p) => p.y));
  let linesAxis = niceAxis(linesMax, intervals);
  if (linesAxis.ticks.length - 1 !== intervals) {
    const step = niceStep(linesMax / intervals);
    linesAxis = { max: step * intervals, ticks: bytesAxis.ticks.map((_, i) => i * step) };
  }
  const sx = scaleLinear([0, xAxis.max], [frame.left, frame.width - frame.right]);
  const syBytes = scaleLinear([0, bytesAxis.max], [frame.height - frame.bottom, frame.top]);
  const syLines = scaleLinear([0, linesAxis.max], [frame.height - frame.bottom, frame.top]);
  return {
    bytesPath: stepPath(bytes, sx, syBytes, tried),
    linesPath: stepPath(lines, sx, syLines, tried),
    xTicks: xAxis.ticks.map((value) => ({ value, x: sx(value) })),
    bytesTicks: bytesAxis.ticks.map((value) => ({ value, y: syBytes(value) })),
    linesTicks: linesAxis.ticks.map((value) => ({ value, y: syLines(value) })),
    frame,
  };
}

/**
 * A short label for an axis value: 12000 → "12k".
 * @param {number} value
 * @returns {string}
 */
export function shortNumber(value) {
  if (Math.abs(value) >= 1e6) return `${trim(value / 1e6)}M`;
  if (Math.abs(value) >= 1e3) return `${trim(value / 1e3)}k`;
  return trim(value);
}

/** @param {number} v */
function trim(v) {
  return String(Math.round(v * 10) / 10);
}
