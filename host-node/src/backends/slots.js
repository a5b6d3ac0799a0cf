// A pool of job slots: each slot owns a folder (and, for the runner, a worker), so
// at most `jobs` candidates run at once and never share a file.

export class Slots {
  /** @param {number} count */
  constructor(count) {
    /** @type {number[]} */
    this.free = Array.from({ length: count }, (_, i) => i);
    /** @type {((slot: number) => void)[]} */
    this.waiting = [];
    this.size = count;
  }

  /** @returns {Promise<number>} */
  acquire() {
    const slot = this.free.shift();
    if (slot !== undefined) return Promise.resolve(slot);
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  /** @param {number} slot */
  release(slot) {
    const next = this.waiting.shift();
    if (next) next(slot);
    else this.free.push(slot);
  }
}
