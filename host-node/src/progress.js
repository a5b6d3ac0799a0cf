// What the CLI tells people while it works: one live status line on a terminal,
// one line per accepted candidate otherwise, and the summary at the end. All of it
// goes to stderr.

import { describeDevices } from './devices.js';

/** @typedef {import('./reduce.js').Progress} Progress */
/** @typedef {import('./reduce.js').AcceptedStep} AcceptedStep */

/** @type {Record<string, string>} */
const PHASE_TEXT = {
  check: 'checking that the original program reproduces…',
  reduce: 'reducing…',
  finish: 'removing freeze markers and checking the result…',
};

/** Redraw the status line at most this often. */
const REDRAW_MS = 100;

export class ProgressReporter {
  /**
   * @param {object} options
   * @param {NodeJS.WritableStream & { isTTY?: boolean, columns?: number }} options.stream
   * @param {boolean} [options.quiet] print nothing but warnings
   */
  constructor({ stream, quiet = false }) {
    this.stream = stream;
    this.quiet = quiet;
    this.live = Boolean(stream.isTTY) && !quiet;
    this.phase = 'check';
    this.statusShown = false;
    this.lastDraw = 0;
    /** @type {Progress | undefined} */
    this.last = undefined;
    /** The status line's note of each job's GPU (see `useDevices`). */
    this.devices = '';
    /** Accepted candidates reported so far. */
    this.accepted = 0;
  }

  /**
   * Says which GPU each job uses, now and on the status line.
   * @param {readonly string[]} perJob
   */
  useDevices(perJob) {
    this.devices = ` · GPU ${perJob.join(',')}`;
    if (!this.quiet) this.note(`GPUs: ${describeDevices(perJob)}`);
  }

  /** @param {string} phase */
  setPhase(phase) {
    this.phase = phase;
    if (this.live) this.draw(true);
  }

  /** @param {Progress} progress */
  update(progress) {
    this.last = progress;
    // Counted here: the engine's count may already hold the accepted candidates a
    // speculation reports next (several at once with -j 2).
    if (progress.accepted) this.accepted += 1;
    if (this.quiet) return;
    if (this.live) {
      this.draw(Boolean(progress.accepted));
    } else if (progress.accepted) {
      this.stream.write(`autodd: ${acceptedLine(this.accepted, progress, progress.accepted)}\n`);
    }
  }

  /**
   * A line that must be seen (a warning); it never garbles the status line.
   * @param {string} message
   */
  note(message) {
    this.clear();
    this.stream.write(`autodd: ${message}\n`);
    if (this.live) this.draw(true);
  }

  /** Removes the status line before the summary. */
  finish() {
    this.clear();
    this.live = false;
  }

  clear() {
    if (this.statusShown) {
      this.stream.write('\r\x1b[K');
      this.statusShown = false;
    }
  }

  /** @param {boolean} force */
  draw(force) {
    const now = performance.now();
    if (!force && now - this.lastDraw < REDRAW_MS) return;
    this.lastDraw = now;
    const p = this.last;
    let line = `autodd: ${PHASE_TEXT[this.phase] ?? this.phase}`;
    if (p && this.phase === 'reduce') {
      const { stats } = p;
      const rate = p.elapsedMs > 0 ? (p.tried * 1000) / p.elapsedMs : 0;
      line =
        `autodd: ${stats.phase} · ${size(stats.bestBytes, stats.bestLines)}` +
        ` (${percent(stats.bestBytes, stats.originalBytes)})` +
        ` · tried ${p.tried}, accepted ${stats.accepted} · ${rate.toFixed(1)}/s · ${clock(p.elapsedMs)}` +
        this.devices;
    }
    // Longer than the terminal, the line would wrap and `\r` could not redraw it.
    const width = /** @type {{ columns?: number }} */ (this.stream).columns || 100;
    this.stream.write(`\r\x1b[K${line.slice(0, Math.max(width - 1, 20))}`);
    this.statusShown = true;
  }
}

/**
 * @param {number} number the step's place among the accepted ones
 * @param {Progress} progress
 * @param {AcceptedStep} step
 */
function acceptedLine(number, progress, step) {
  const what = step.rewrites.length ? `${step.phase}: ${step.rewrites.join(', ')}` : step.phase;
  return (
    `accepted #${number} (${what}) → ${size(step.bytes, step.lines)}` +
    ` (${percent(step.bytes, progress.stats.originalBytes)}), tried ${progress.tried}, ${clock(step.elapsedMs)}`
  );
}

/**
 * @param {number} bytes
 * @param {number} lines
 */
export function size(bytes, lines) {
  return `${bytes} B / ${lines} ${lines === 1 ? 'line' : 'lines'}`;
}

/**
 * @param {number} part
 * @param {number} whole
 */
export function percent(part, whole) {
  return whole > 0 ? `${((100 * part) / whole).toFixed(1)}%` : '100%';
}

/** @param {number} ms */
export function clock(ms) {
  const s = Math.floor(ms / 1000);
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
}

/** @param {string} text */
export function countLines(text) {
  if (text === '') return 0;
  return text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
}
