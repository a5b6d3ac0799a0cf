// The bundled examples: where each program is served from, the message it fails with
// (for Python in the browser) and the mocked oracle that stands in for "python3 still
// fails this way". Predicates are function bodies
// over `source` (see oracle.js); they read the text with regexes, written to hold on
// both the original spelling and autodd's normalized printing (quotes, spacing).

/**
 * @typedef {object} Example
 * @property {string} id
 * @property {string} title
 * @property {string} url relative to the page
 * @property {string} failure what the real program prints when run with python3
 * @property {string} needle the failure message, for Python in the browser
 * @property {string} predicate body of `function (source) { … }`
 */

// Shared by the predicates: the lines of the indented block that starts at the first
// line matching `header` (the header included), or '' when there is none.
const BLOCK_HELPER = `function block(header) {
  const lines = source.split('\\n');
  const i = lines.findIndex((line) => header.test(line));
  if (i < 0) return '';
  const indent = lines[i].search(/\\S/);
  let j = i + 1;
  while (j < lines.length && (lines[j].trim() === '' || lines[j].search(/\\S/) > indent)) j++;
  return lines.slice(i, j).join('\\n');
}`;

/** @type {Example[]} */
export const EXAMPLES = [
  {
    id: 'tile-kernel',
    title: 'Tile kernel: T.gemm shape bug (examples/autodd)',
    url: 'examples/autodd/tile_kernel_bug.py',
    failure: 'DSLError: T.gemm K shape check failed: 32 != 128',
    needle: 'T.gemm K shape check failed',
    predicate: `// Mocked: stands for "python3 fails with: T.gemm K shape check failed".
// Still failing while there is a T.gemm(a, b, …, transpose_B=True) call whose
// operands come from T.alloc_shared((block_M, block_K), …) and
// T.alloc_shared((block_K, block_N), …), and the shape-check error is still raised.
const shapeOf = (name) => {
  const m = new RegExp('\\\\b' + name + '\\\\s*=\\\\s*T\\\\.alloc_shared\\\\(\\\\s*\\\\(([^()]*)\\\\)').exec(source);
  return m ? m[1].replace(/\\s+/g, '') : null;
};
if (!/raise\\s+\\w+\\(\\s*f?(['"])[^\\n]*shape check failed/.test(source)) return false;
for (const [, a, b, rest] of source.matchAll(/\\bT\\.gemm\\(\\s*(\\w+)\\s*,\\s*(\\w+)([^)]*)\\)/g)) {
  if (/transpose_B\\s*=\\s*True/.test(rest) &&
      shapeOf(a) === 'block_M,block_K' && shapeOf(b) === 'block_K,block_N') return true;
}
return false;`,
  },
  {
    id: 'parser',
    title: 'Parser: right-associative minus',
    url: 'examples/parser_bug.py',
    failure: 'AssertionError: 10 - 4 - 3: expected 3, got 9',
    needle: 'expected 3, got 9',
    predicate: `// Mocked: stands for "python3 fails with: 10 - 4 - 3: expected 3, got 9".
// Still failing while parse_expr calls itself for the right operand of "-"
// and a case with two minus signs is still parsed.
${BLOCK_HELPER}
const parseExpr = block(/^\\s*def parse_expr\\(/);
return /self\\.parse_expr\\(\\)/.test(parseExpr) &&
  /['"][^'"\\n]*\\d\\s*-\\s*\\d+\\s*-\\s*\\d[^'"\\n]*['"]/.test(source) &&
  /\\.parse_expr\\(\\)/.test(source.replace(parseExpr, ''));`,
  },
  {
    id: 'shapes',
    title: 'Class hierarchy: missing super().__init__',
    url: 'examples/shapes_bug.py',
    failure: "AttributeError: 'Square' object has no attribute 'width'",
    needle: "object has no attribute 'width'",
    predicate: `// Mocked: stands for "python3 fails with: 'Square' object has no attribute 'width'".
// Still failing while Square(Rect) never calls Rect's __init__, Rect's area reads
// self.width, and a Square is still made and asked for its area.
${BLOCK_HELPER}
const square = block(/^\\s*class\\s+Square\\s*\\(\\s*Rect\\s*\\)/);
const rect = block(/^\\s*class\\s+Rect\\b/);
return square !== '' && !/super\\(|Rect\\.__init__\\(/.test(square) &&
  /def\\s+area\\(/.test(rect) && /self\\.width/.test(rect) &&
  /\\bSquare\\(/.test(source.replace(square, '')) && /\\.(area|describe)\\(\\)/.test(source);`,
  },
  {
    id: 'frozen',
    title: 'Frozen setup, non-ASCII text: rounding bug',
    url: 'examples/frozen_unicode_bug.py',
    failure: 'AssertionError: total 5.1 != 5.12',
    needle: 'total 5.1 != 5.12',
    predicate: `// Mocked: stands for "python3 fails with: AssertionError: total … != …".
// Still failing while total() rounds inside the sum and is still checked.
${BLOCK_HELPER}
const total = block(/^\\s*def\\s+total\\(/);
return /sum\\([^\\n]*round\\(/.test(total) && /assert\\s+total\\(/.test(source);`,
  },
];
