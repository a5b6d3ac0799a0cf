// Figures the benchmarks here share.

/** The value below which a fraction `q` of `xs` lies (the nearest rank, no averaging). */
export const quantile = (/** @type {number[]} */ xs, /** @type {number} */ q) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))];
};

// Of an even count, the upper of the two middle values.
export const median = (/** @type {number[]} */ xs) => quantile(xs, 0.5);
