// The "Python in the browser" oracle, as the reduction worker uses it: the Pyodide
// worker (python.js) runs each candidate; a candidate that runs past its time limit is
// interrupted (KeyboardInterrupt through Pyodide's interrupt buffer, where the page is
// cross-origin isolated and may share memory), or else its worker is terminated and a
// new one started. Either way it counts as not failing, as a timeout does in the CLI.

/**
 * @typedef {object} PythonRun
 * @property {boolean} found MSG in what the program wrote itself
 * @property {boolean} foundAnywhere MSG anywhere, quoted source lines included
 * @property {string | null} exception
 * @property {number} exitCode
 * @property {boolean} timedOut
 * @property {string} stdoutTail
 * @property {string} stderrTail
 * @property {number} ms
 */

/** After an interrupt, how long the candidate has to stop before its worker goes. */
const INTERRUPT_GRACE_MS = 500;

export class PythonOracle {
  constructor() {
    /** @type {Worker | null} */
    this.worker = null;
    /** @type {Int32Array | null} */
    this.interrupt = null;
    /** @type {{ pyodide: string, python: string } | null} */
    this.versions = null;
    /** @type {Promise<void> | null} */
    this.starting = null;
    this.nextId = 1;
    /** @type {((msg: any) => void) | null} */
    this.onDone = null;
    this.restarts = 0;
  }

  /** Starts the Python worker (again), resolving once Pyodide is loaded. */
  start() {
    if (this.starting) return this.starting;
    const worker = new Worker(new URL('./python.js', import.meta.url), { type: 'module' });
    this.worker = worker;
    const shared = typeof SharedArrayBuffer === 'function' && self.crossOriginIsolated;
    const buffer = shared ? new SharedArrayBuffer(4) : undefined;
    this.interrupt = buffer ? new Int32Array(buffer) : null;
    this.starting = new Promise((resolve, reject) => {
      worker.onmessage = (event) => {
        const msg = event.data;
        if (msg.type === 'ready') {
          this.versions = { pyodide: msg.pyodide, python: msg.python };
          resolve();
        } else if (msg.type === 'failed') {
          reject(new Error(`cannot start Python: ${msg.message}`));
        } else if (msg.type === 'done') {
          this.onDone?.(msg);
        }
      };
      worker.onerror = (e) => reject(new Error(`cannot start Python: ${e.message}`));
    });
    worker.postMessage({ type: 'init', interrupt: buffer });
    return this.starting;
  }

  /** Whether a hung candidate is interrupted rather than its worker replaced. */
  get interruptible() {
    return this.interrupt !== null;
  }

  /**
   * Runs one program; past `limitMs` it is stopped and counts as timed out.
   * @param {string} source
   * @param {string} needle
   * @param {number} limitMs
   * @returns {Promise<PythonRun>}
   */
  async run(source, needle, limitMs) {
    await this.start();
    const id = this.nextId++;
    if (this.interrupt) Atomics.store(this.interrupt, 0, 0);
    return new Promise((resolve) => {
      let timedOut = false;
      /** @type {ReturnType<typeof setTimeout> | undefined} */
      let grace;
      const finish = (/** @type {PythonRun} */ result) => {
        clearTimeout(limit);
        clearTimeout(grace);
        this.onDone = null;
        resolve(result);
      };
      const stopped = (/** @type {number} */ ms) => ({
        found: false,
        foundAnywhere: false,
        exception: null,
        exitCode: 1,
        timedOut: true,
        stdoutTail: '',
        stderrTail: '',
        ms,
      });
      this.onDone = (msg) => {
        if (msg.id !== id) return;
        finish(timedOut ? stopped(msg.ms) : { ...msg, timedOut: false });
      };
      const limit = setTimeout(() => {
        timedOut = true;
        if (this.interrupt) {
          // SIGINT, as Pyodide reads it: a KeyboardInterrupt at the next bytecode.
          Atomics.store(this.interrupt, 0, 2);
          grace = setTimeout(() => {
            this.restart();
            finish(stopped(limitMs + INTERRUPT_GRACE_MS));
          }, INTERRUPT_GRACE_MS);
        } else {
          this.restart();
          finish(stopped(limitMs));
        }
      }, limitMs);
      this.worker?.postMessage({ type: 'run', id, source, needle });
    });
  }

  /** Replaces a worker stuck in a candidate. */
  restart() {
    this.worker?.terminate();
    this.worker = null;
    this.starting = null;
    this.restarts++;
  }

  close() {
    this.worker?.terminate();
    this.worker = null;
    this.starting = null;
  }
}
