// The time limits of a reduction: what a candidate may take, set from the original's
// run and then from the candidates that reproduce, and when a waiting candidate is
// probed for being stuck. Pure arithmetic over run times, tested without Python.

/** Candidates may run this many times longer than the original did... */
export const ADAPTIVE_FACTOR = 10;
/**
 * ...plus this margin, for noise (a busy machine, a slow fork). On the benchmark's 15
 * cases no candidate that reproduced took over 3.4 times as long as the original, so
 * for programs that run in milliseconds the margin is most of the cap: at 0.1 s it
 * made each hang cost 15 to 30 times the original's run.
 */
export const ADAPTIVE_MARGIN_MS = 20;
/**
 * Once this many candidates reproduced, the limit follows their run times
 * (`learnTimeout`): a hang is judged against what reproducing takes in this reduction,
 * not only against the original's run...
 */
export const LEARN_AFTER = 8;
/** ...at this many times the slowest of them... */
export const LEARNED_FACTOR = 3;
/**
 * ...of the last this many (plus the margin, and never above the limit the original
 * set). Reproducing candidates get faster as the program shrinks, and so does the
 * limit: the candidates that go down a slow path instead of failing the same way stop
 * costing the original's time. On tilelang kernels, where the first error a TVM call
 * raises in a process costs 0.85 s, such candidates took two thirds of a reduction's
 * run time; in the traces of the 20 benchmark cases, at `-j 1` and `-j 2`, no
 * reproducing candidate took over this limit.
 */
export const LEARN_WINDOW = 32;
/**
 * What starting a fresh interpreter (its site imports included) may add to a run that
 * the candidates' limit was set for, in the one fresh run an interrupted reduction makes.
 */
export const FRESH_START_MS = 500;
/** A candidate is probed for being stuck from this multiple of the original's time on… */
export const STUCK_FACTOR = 2;
/** …plus this. */
export const STUCK_MARGIN_MS = 20;

/** The limits of one reduction, as they change. */
export class TimeLimits {
  /**
   * @param {object} how
   * @param {number} how.timeoutMs the user's limit (`--timeout`), never exceeded
   * @param {boolean} how.adaptive cap candidates at a multiple of the original's run
   * @param {boolean} how.learn then follow the candidates that reproduce
   */
  constructor({ timeoutMs, adaptive, learn }) {
    this.timeoutMs = timeoutMs;
    this.adaptive = adaptive;
    this.learn = adaptive && learn;
    /** The limit of the candidates now. */
    this.candidateMs = timeoutMs;
    /** The limit the original's run set (the first one candidates had). */
    this.firstCandidateMs = timeoutMs;
    this.originalMs = 0;
    /** The run times of the last LEARN_WINDOW candidates that reproduced. */
    this.recentFoundMs = /** @type {number[]} */ ([]);
  }

  /**
   * The original took `originalMs` (its faster run, when it ran twice): sets the
   * candidates' limit from it.
   * @param {number} originalMs
   */
  setOriginal(originalMs) {
    this.originalMs = originalMs;
    if (!this.adaptive) return;
    this.candidateMs = Math.min(this.timeoutMs, ADAPTIVE_FACTOR * originalMs + ADAPTIVE_MARGIN_MS);
    this.firstCandidateMs = this.candidateMs;
  }

  /** When a candidate waiting on nothing is probed for being stuck. */
  get stuckMs() {
    return STUCK_FACTOR * this.originalMs + STUCK_MARGIN_MS;
  }

  /** The limit of the one fresh run an interrupted reduction makes. */
  get quickMs() {
    return Math.min(this.timeoutMs, this.candidateMs + FRESH_START_MS);
  }

  /**
   * A candidate reproduced in `ms`: from the LEARN_AFTER-th on, the limit follows the
   * slowest of the last LEARN_WINDOW of them (never above the original's limit).
   * Returns the new limit when it changed.
   * @param {number} ms
   * @returns {number | undefined}
   */
  reproducedIn(ms) {
    if (!this.learn) return undefined;
    this.recentFoundMs.push(ms);
    if (this.recentFoundMs.length > LEARN_WINDOW) this.recentFoundMs.shift();
    // LEARN_AFTER is under LEARN_WINDOW: the window holds every one until then.
    if (this.recentFoundMs.length < LEARN_AFTER) return undefined;
    const learned = LEARNED_FACTOR * Math.max(...this.recentFoundMs) + ADAPTIVE_MARGIN_MS;
    const limit = Math.min(this.firstCandidateMs, learned);
    if (limit === this.candidateMs) return undefined;
    this.candidateMs = limit;
    return limit;
  }
}
