// The page's state in a link and in local storage: the program, the oracle (mode,
// message or predicate) and the selected rewrite and site. A link holds it compressed
// (deflate-raw, then base64url) in its fragment, which never reaches a server.

/**
 * @typedef {object} PageState
 * @property {string} program
 * @property {'python' | 'mocked'} mode
 * @property {string} needle
 * @property {string} predicate
 * @property {string} rewrite
 * @property {number} site
 */

const KEY = 'autodd-playground';

/**
 * The fragment that holds `state`: `#s=` and the compressed JSON.
 * @param {PageState} state
 * @returns {Promise<string>}
 */
export async function encodeState(state) {
  const data = new TextEncoder().encode(JSON.stringify(state));
  const packed = await new Response(
    new Blob([data]).stream().pipeThrough(new CompressionStream('deflate-raw')),
  ).arrayBuffer();
  let text = '';
  for (const byte of new Uint8Array(packed)) text += String.fromCharCode(byte);
  return `#s=${btoa(text).replaceAll('+', '-').replaceAll('/', '_').replace(/=+$/, '')}`;
}

/**
 * The state a fragment holds, or null when it holds none (or a damaged one).
 * @param {string} hash
 * @returns {Promise<PageState | null>}
 */
export async function decodeState(hash) {
  const m = /^#s=([A-Za-z0-9_-]+)$/.exec(hash);
  if (!m) return null;
  try {
    const text = atob(m[1].replaceAll('-', '+').replaceAll('_', '/'));
    const bytes = Uint8Array.from(text, (c) => c.charCodeAt(0));
    const json = await new Response(
      new Blob([bytes]).stream().pipeThrough(new DecompressionStream('deflate-raw')),
    ).text();
    return checked(JSON.parse(json));
  } catch {
    return null;
  }
}

/** @param {PageState} state */
export function saveLocal(state) {
  try {
    localStorage.setItem(KEY, JSON.stringify(state));
  } catch {
    // Storage full or disabled: the link still holds the state.
  }
}

/** @returns {PageState | null} */
export function loadLocal() {
  try {
    return checked(JSON.parse(localStorage.getItem(KEY) ?? 'null'));
  } catch {
    return null;
  }
}

/**
 * `value` if it has the shape of a PageState, else null.
 * @param {any} value
 * @returns {PageState | null}
 */
function checked(value) {
  if (!value || typeof value !== 'object') return null;
  const { program, mode, needle, predicate, rewrite, site } = value;
  if (typeof program !== 'string' || (mode !== 'python' && mode !== 'mocked')) return null;
  return {
    program,
    mode,
    needle: typeof needle === 'string' ? needle : '',
    predicate: typeof predicate === 'string' ? predicate : '',
    rewrite: typeof rewrite === 'string' ? rewrite : '',
    site: Number.isInteger(site) ? site : 0,
  };
}
