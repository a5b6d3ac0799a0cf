// Shared by the test files: running the real CLI, temp folders, and finding
// processes a run left behind.

import { spawn, spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const HOST = fileURLToPath(new URL('..', import.meta.url));
export const CLI = path.join(HOST, 'bin', 'autodd.js');
export const EXAMPLE = path.join(HOST, '..', 'examples', 'autodd', 'tile_kernel_bug.py');
export const BACKENDS = /** @type {const} */ (['runner', 'subproc']);

/** Whether scripts/build-wasm.sh nodejs has run (the CLI needs the engine). */
export const HAVE_ENGINE = fs.existsSync(path.join(HOST, 'pkg', 'autodd_wasm.js'));

/** @type {string[]} */
const tempDirs = [];
process.once('exit', () => {
  for (const dir of tempDirs) fs.rmSync(dir, { recursive: true, force: true });
});

/**
 * A fresh temp folder, removed when the process exits.
 * @returns {string}
 */
export function tempDir() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'autodd-test-'));
  tempDirs.push(dir);
  return dir;
}

/**
 * Writes `files` (name → text) into a new temp folder.
 * @param {Record<string, string | Buffer>} files
 */
export function fixture(files) {
  const dir = tempDir();
  for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(dir, name), text);
  return dir;
}

/**
 * @typedef {object} CliRun
 * @property {number | null} code
 * @property {NodeJS.Signals | null} signal what ended it, if a signal did
 * @property {string} stdout
 * @property {string} stderr
 * @property {string} mark the value of AUTODD_TEST_MARK the run (and everything it started) had
 * @property {string} tmp the run's TMPDIR, where autodd makes its private temp folder
 */

/**
 * Runs `autodd ARGS` to completion.
 * @param {string[]} args
 * @param {{ cwd?: string, detached?: boolean, env?: NodeJS.ProcessEnv, onStderr?: (text: string, child: import('node:child_process').ChildProcess) => void, onStart?: (child: import('node:child_process').ChildProcess) => void, inherit?: Record<number, number> }} [options]
 *   `detached`: in a process group of its own (which a test may signal); `onStart`
 *   gets the process as soon as it is started; `inherit`: descriptors it starts with
 *   open beside stdio, as a shell's `30<>file` leaves them (number there → fd here)
 * @returns {Promise<CliRun>}
 */
export function runCli(args, { cwd, detached = false, env = {}, onStderr, onStart, inherit = {} } = {}) {
  const mark = randomUUID();
  const tmp = tempDir();
  /** @type {('ignore' | 'pipe' | number)[]} */
  const stdio = ['ignore', 'pipe', 'pipe'];
  for (const [at, fd] of Object.entries(inherit)) {
    while (stdio.length < Number(at)) stdio.push('ignore');
    stdio[Number(at)] = fd;
  }
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      cwd,
      env: { ...process.env, ...env, AUTODD_TEST_MARK: mark, TMPDIR: tmp },
      stdio,
      detached,
    });
    onStart?.(child);
    let stdout = '';
    let stderr = '';
    child.stdout?.on('data', (d) => (stdout += d));
    child.stderr?.on('data', (d) => {
      stderr += d;
      onStderr?.(stderr, child);
    });
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr, mark, tmp }));
  });
}

/**
 * Pids of live processes whose environment holds AUTODD_TEST_MARK=mark.
 * @param {string} mark
 * @returns {number[]}
 */
export function processesWithMark(mark) {
  const needle = `AUTODD_TEST_MARK=${mark}`;
  const found = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const environ = fs.readFileSync(`/proc/${entry}/environ`, 'latin1');
      if (environ.split('\0').includes(needle) && isRunning(Number(entry))) found.push(Number(entry));
    } catch {
      // The process went away while we looked.
    }
  }
  return found;
}

/**
 * Whether process `pid` exists and has not exited (a zombie has; its parent just has not
 * reaped it yet).
 * @param {number | undefined} pid
 */
export function isRunning(pid) {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'latin1');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

/**
 * Runs `python3 file` and returns its combined output.
 * @param {string} file
 * @param {string} [cwd]
 */
export function runPython(file, cwd) {
  const r = spawnSync('python3', [file], { cwd, encoding: 'utf8', timeout: 30_000 });
  return { status: r.status, output: `${r.stdout}${r.stderr}` };
}

/** @param {string} text */
export function lineCount(text) {
  return text.split('\n').filter((l) => l.trim() !== '').length;
}

/**
 * Waits until `check()` is true (polling), or fails after `ms`.
 * @param {() => boolean} check
 * @param {number} ms
 */
export async function waitFor(check, ms) {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** @type {boolean | undefined} */
let collapses;

/**
 * Whether this kernel collapses anonymous memory into huge pages (MADV_COLLAPSE, Linux
 * 6.1 on); asked of Python once, as the worker asks.
 */
export function canCollapse() {
  if (collapses === undefined) {
    const probe = `import ctypes, mmap
size = 4 << 20
m = mmap.mmap(-1, size, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
m.write(b"x" * size)
start = (ctypes.addressof(ctypes.c_char.from_buffer(m)) + (2 << 20) - 1) & ~((2 << 20) - 1)
libc = ctypes.CDLL(None, use_errno=True)
libc.madvise.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
print(libc.madvise(start, 2 << 20, 25) == 0)
`;
    collapses =
      process.platform === 'linux' &&
      spawnSync('python3', ['-c', probe], { encoding: 'utf8' }).stdout?.trim() === 'True';
  }
  return collapses;
}
