#!/usr/bin/env node
// A small static server for the demo, with no dependencies: serves web-demo/ (or a
// built dist/ with --dir) on localhost, plus, when serving the sources, the
// repository's example programs under /examples/autodd/, Pyodide's runtime under
// /pyodide/ and the runner's output scan under /autodd_runner/, so the page loads them
// from their one true copy. The page is cross-origin isolated (COOP and COEP), so
// Python in the browser can interrupt a candidate that hangs.
//
//   node web-demo/serve.mjs [--port 8080] [--host 127.0.0.1] [--dir web-demo/dist]
//
// --port 0 picks a free port. The address is printed as `http://HOST:PORT/`.

import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { createServer } from 'node:http';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const repoRoot = path.resolve(here, '..');

/** @type {Record<string, string>} */
const MIME = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.wasm': 'application/wasm',
  '.json': 'application/json; charset=utf-8',
  '.py': 'text/x-python; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.ts': 'text/plain; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
  '.md': 'text/plain; charset=utf-8',
  '.zip': 'application/zip',
};

// The page's own policy, also sent as a header: nothing may come from another host
// (inline styles: CodeMirror sets `style` attributes on its elements).
const CSP =
  "default-src 'self'; script-src 'self' 'unsafe-eval' 'wasm-unsafe-eval'; style-src 'self' 'unsafe-inline'; " +
  "img-src 'self' data:; connect-src 'self'; worker-src 'self'; object-src 'none'; base-uri 'none'";

/**
 * @typedef {object} ServeOptions
 * @property {number} [port] 0 picks a free port; 8080 by default
 * @property {string} [host] 127.0.0.1 by default
 * @property {string} [dir] the directory to serve; web-demo/ by default
 * @property {boolean} [quiet] do not log requests that fail
 */

/**
 * Starts the server; resolves once it listens.
 * @param {ServeOptions} [options]
 * @returns {Promise<{ url: string, port: number, close: () => Promise<void> }>}
 */
export async function startServer(options = {}) {
  const host = options.host ?? '127.0.0.1';
  const dir = path.resolve(options.dir ?? here);
  // Served from the repository only when serving the sources: a dist/ has its copies.
  /** @type {Array<[string, string]>} */
  const mounts =
    dir === here
      ? [
          ['/examples/autodd/', path.join(repoRoot, 'examples', 'autodd')],
          ['/pyodide/', path.join(here, 'node_modules', 'pyodide')],
          ['/autodd_runner/', path.join(repoRoot, 'host-node', 'python', 'autodd_runner')],
          ['/freeze/', path.join(repoRoot, 'host-node', 'python', 'freeze')],
        ]
      : [];

  const server = createServer(async (req, res) => {
    const fail = (/** @type {number} */ status, /** @type {string} */ text) => {
      if (!options.quiet) console.error(`${status} ${req.method} ${req.url}`);
      res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8' });
      res.end(`${text}\n`);
    };
    if (req.method !== 'GET' && req.method !== 'HEAD') return fail(405, 'method not allowed');
    let pathname;
    try {
      pathname = decodeURIComponent(new URL(req.url ?? '/', 'http://localhost').pathname);
    } catch {
      return fail(400, 'bad request');
    }
    if (pathname.endsWith('/')) pathname += 'index.html';
    const file = resolve(pathname, dir, mounts);
    if (!file) return fail(404, 'not found');
    try {
      const info = await stat(file);
      if (!info.isFile()) return fail(404, 'not found');
      res.writeHead(200, {
        'content-type': MIME[path.extname(file)] ?? 'application/octet-stream',
        'content-length': info.size,
        'cache-control': 'no-cache',
        'x-content-type-options': 'nosniff',
        'content-security-policy': CSP,
        'cross-origin-opener-policy': 'same-origin',
        'cross-origin-embedder-policy': 'require-corp',
      });
      if (req.method === 'HEAD') return res.end();
      createReadStream(file).pipe(res);
    } catch {
      fail(404, 'not found');
    }
  });

  await new Promise((resolveListen, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 8080, host, () => resolveListen(undefined));
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://${host}:${port}/`,
    port,
    close: () =>
      new Promise((resolveClose) => {
        server.closeAllConnections();
        server.close(() => resolveClose(undefined));
      }),
  };
}

/**
 * The file a URL path names, or null when it is outside what is served (dotfiles,
 * tests, node_modules and anything above the root are never served).
 * @param {string} pathname decoded, starting with '/'
 * @param {string} dir
 * @param {Array<[string, string]>} mounts URL prefix → directory
 * @returns {string | null}
 */
function resolve(pathname, dir, mounts) {
  if (pathname.includes('\0')) return null;
  for (const [prefix, target] of mounts) {
    if (pathname.startsWith(prefix)) return inside(target, pathname.slice(prefix.length));
  }
  const parts = pathname.split('/').filter(Boolean);
  if (parts.some((p) => p.startsWith('.') || p === 'node_modules' || p === 'test')) return null;
  return inside(dir, parts.join('/'));
}

/**
 * @param {string} root
 * @param {string} relative
 * @returns {string | null}
 */
function inside(root, relative) {
  const file = path.resolve(root, relative);
  return file.startsWith(root + path.sep) ? file : null;
}

/** @param {string[]} argv */
function parseArgs(argv) {
  /** @type {ServeOptions} */
  const options = {};
  for (let i = 0; i < argv.length; i++) {
    const [flag, inline] = argv[i].split('=', 2);
    const value = () => inline ?? argv[++i];
    if (flag === '--port' || flag === '-p') {
      const port = Number(value());
      if (!Number.isInteger(port) || port < 0 || port > 65535) usage(`invalid port: ${argv[i]}`);
      options.port = port;
    } else if (flag === '--host') {
      options.host = value();
    } else if (flag === '--dir') {
      options.dir = value();
    } else if (flag === '--help' || flag === '-h') {
      usage();
    } else {
      usage(`unknown option: ${argv[i]}`);
    }
  }
  return options;
}

/** @param {string} [error] */
function usage(error) {
  const text = 'usage: node web-demo/serve.mjs [--port 8080] [--host 127.0.0.1] [--dir DIR]';
  if (error) {
    console.error(`serve: ${error}\n${text}`);
    process.exit(2);
  }
  console.log(text);
  process.exit(0);
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  const { url } = await startServer(parseArgs(process.argv.slice(2)));
  console.log(`autodd demo: ${url}`);
}
