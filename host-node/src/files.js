// The files a reduction reads and writes: the program (checked before anything
// runs) and the output, always replaced whole so it never holds half a program.

import fs from 'node:fs';
import path from 'node:path';
import { AutoddError } from './errors.js';

/**
 * Reads a Python program, rejecting what cannot be one with a clear `bad-input` error.
 * @param {string} file
 * @returns {string}
 */
export function readSource(file) {
  /** @type {Buffer} */
  let bytes;
  try {
    const stat = fs.statSync(file);
    if (stat.isDirectory()) {
      throw new AutoddError('bad-input', `${file} is a directory, not a Python file`);
    }
    // A FIFO would block the read for good; a device is no program either.
    if (!stat.isFile()) throw new AutoddError('bad-input', `${file} is ${kindOf(stat)}, not a Python file`);
    bytes = fs.readFileSync(file);
  } catch (err) {
    if (err instanceof AutoddError) throw err;
    throw new AutoddError('bad-input', `cannot read ${file}: ${describeFsError(err)}`);
  }
  const declared = declaredEncoding(bytes);
  // What the file declares decides how Python reads it; autodd reads and writes UTF-8,
  // which only ASCII means the same in (for every other encoding Python knows).
  if (declared && bytes.some((b) => b > 0x7f)) {
    throw new AutoddError(
      'bad-input',
      `${file} declares its encoding as ${declared}, and autodd reads UTF-8 only: ` +
        `convert it (iconv -f ${iconvName(declared)} -t UTF-8) and drop the declaration`,
    );
  }
  /** @type {string} */
  let text;
  try {
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    throw new AutoddError('bad-input', `${file} is not valid UTF-8 text`);
  }
  if (text.trim() === '') throw new AutoddError('bad-input', `${file} is empty`);
  return text;
}

/**
 * glibc iconv's name of a Python codec: `latin-1` is `ISO-8859-1` there, `euc_jp`
 * `EUC-JP`; most others (cp1252, koi8-r, shift_jis) only change case.
 * @param {string} codec
 */
function iconvName(codec) {
  const name = codec.toUpperCase().replace(/_/g, '-');
  return /^(LATIN-?1|L1|ISO-?8859-1|8859|CP819)$/.test(name) ? 'ISO-8859-1' : name;
}

/**
 * The encoding a PEP 263 declaration (`# -*- coding: latin-1 -*-` on line 1 or 2)
 * names, if other than UTF-8.
 * @param {Buffer} bytes
 * @returns {string | undefined}
 */
function declaredEncoding(bytes) {
  const head = bytes
    .subarray(0, 1024)
    .toString('latin1')
    .split(/\r\n|\r|\n/, 2);
  for (const line of head) {
    const cookie = /^[ \t\f]*#.*?coding[:=][ \t]*([-\w.]+)/.exec(line);
    if (cookie) {
      const name = cookie[1].toLowerCase().replace(/_/g, '-');
      return name === 'utf-8' || name === 'utf8' || name.startsWith('utf-8-') ? undefined : cookie[1];
    }
    // Line 2 counts only after a comment or a blank line.
    if (!/^[ \t\f]*(#.*)?$/.test(line)) break;
  }
  return undefined;
}

/**
 * Checks before a reduction starts that OUTPUT can be written where it is asked for.
 * @param {string} output
 * @param {string} [source] the program's path: OUTPUT may not overwrite it
 * @param {string} [label] what the file is, as the user named it
 * @param {Record<string, string | undefined>} [inputs] other files autodd reads, by
 *   option (`--stdin`): OUTPUT may not overwrite them either
 */
export function checkOutput(output, source, label = 'OUTPUT', inputs = {}) {
  const resolved = path.resolve(output);
  if (source && sameFile(resolved, path.resolve(source))) {
    throw new AutoddError('bad-input', `${output} is the source file itself (${label} must be another file)`);
  }
  for (const [flag, file] of Object.entries(inputs)) {
    if (typeof file === 'string' && sameFile(resolved, path.resolve(file))) {
      throw new AutoddError('bad-input', `${output} is the ${flag} file (${label} must be another file)`);
    }
  }
  let stat;
  try {
    stat = fs.lstatSync(resolved);
  } catch {
    stat = undefined;
  }
  if (stat?.isDirectory()) throw new AutoddError('bad-input', `${output} is a directory`);
  // OUTPUT is replaced by renaming a new file over it: a link, a device or a FIFO
  // would be replaced by a plain file, not written to.
  if (stat?.isSymbolicLink()) {
    throw new AutoddError(
      'bad-input',
      `${output} is a symbolic link (to ${fs.readlinkSync(resolved)}): ${label} is replaced whole, ` +
        'which would replace the link; give the file it points to',
    );
  }
  if (stat && !stat.isFile()) {
    throw new AutoddError(
      'bad-input',
      `${output} is ${kindOf(stat)}; ${label} must be a regular file or a new one`,
    );
  }
  // Writing is what tells: access() says yes to root on a read-only file system.
  const probe = path.join(
    path.dirname(resolved),
    `.${path.basename(resolved)}.autodd-check-${process.pid}.tmp`,
  );
  try {
    fs.writeFileSync(probe, '', { flag: 'wx' });
    fs.rmSync(probe, { force: true });
  } catch (err) {
    throw new AutoddError('bad-input', `cannot write ${output}: ${describeFsError(err)}`);
  }
}

/**
 * What a file that is neither a regular file nor a folder is, in a few words.
 * @param {fs.Stats} stat
 */
function kindOf(stat) {
  if (stat.isFIFO()) return 'a named pipe';
  if (stat.isCharacterDevice()) return 'a character device';
  if (stat.isBlockDevice()) return 'a block device';
  if (stat.isSocket()) return 'a socket';
  return 'not a regular file';
}

/**
 * Whether two paths name the same file: the same path once symlinks are resolved, or
 * the same inode (a hard link).
 * @param {string} a
 * @param {string} b
 */
export function sameFile(a, b) {
  const real = (/** @type {string} */ p) => {
    try {
      return fs.realpathSync(p);
    } catch {
      // It does not exist (yet): its folder may still be a symlink.
      try {
        return path.join(fs.realpathSync(path.dirname(p)), path.basename(p));
      } catch {
        return p;
      }
    }
  };
  if (real(a) === real(b)) return true;
  try {
    const sa = fs.statSync(a);
    const sb = fs.statSync(b);
    return sa.dev === sb.dev && sa.ino === sb.ino;
  } catch {
    return false;
  }
}

/**
 * OUTPUT during a reduction: each smaller program accepted is written in the
 * background (a write, about 0.75 ms synced, must not hold up the next candidates).
 * Writes go one after another; a program accepted while one waits replaces it (only
 * the newest is written). Without a path, nothing is written.
 */
export class OutputWriter {
  /** @param {string | undefined} file */
  constructor(file) {
    this.file = file;
    /** The program OUTPUT holds. */
    this.written = '';
    /** @type {string | undefined} the newest program accepted, until a write takes it */
    this.queued = undefined;
    this.writes = Promise.resolve();
    /** @type {{ error: unknown } | undefined} */
    this.failed = undefined;
  }

  /**
   * Writes the original, before the reduction.
   * @param {string} text
   */
  async start(text) {
    if (this.file) await writeAtomic(this.file, text);
    this.written = text;
  }

  /**
   * Queues `best` (only a smaller program replaces OUTPUT: a canonicalizing step may
   * grow it); rethrows a write that failed.
   * @param {string} best
   */
  keep(best) {
    if (this.failed) throw this.failed.error;
    const waiting = this.queued !== undefined;
    this.queued = best;
    if (!waiting) {
      this.writes = this.writes
        .then(async () => {
          const next = /** @type {string} */ (this.queued);
          this.queued = undefined;
          if (this.file && Buffer.byteLength(next) < Buffer.byteLength(this.written)) {
            await writeAtomic(this.file, next);
            this.written = next;
          }
        })
        .catch((error) => {
          this.failed ??= { error };
        });
    }
  }

  /** Resolves once the writes under way are done (never rejects). */
  idle() {
    return this.writes;
  }

  /** Waits for the writes under way; rethrows a failed one. */
  async settle() {
    await this.writes;
    if (this.failed) throw this.failed.error;
  }

  /**
   * Writes `text` now, if OUTPUT does not hold it already.
   * @param {string} text
   */
  async write(text) {
    if (this.file && text !== this.written) await writeAtomic(this.file, text);
    this.written = text;
  }
}

let tempCounter = 0;

/**
 * Replaces `file` with `text` atomically: a temp file in the same folder, synced, then
 * renamed over it, so readers only ever see the old or the new program.
 * @param {string} file
 * @param {string} text
 */
export async function writeAtomic(file, text) {
  try {
    await replaceFile(path.resolve(file), text);
  } catch (err) {
    // A folder made read-only, a full disk, an immutable file: one line, and the file
    // keeps what it held.
    throw new AutoddError('write-failed', `cannot write ${file}: ${describeFsError(err)}`);
  }
}

/**
 * @param {string} resolved
 * @param {string} text
 */
async function replaceFile(resolved, text) {
  const temp = path.join(
    path.dirname(resolved),
    `.${path.basename(resolved)}.autodd-${process.pid}-${tempCounter++}.tmp`,
  );
  const handle = await fs.promises.open(temp, 'w');
  // Cleaning up after a failure must not hide its cause (a full disk).
  const discard = () => fs.promises.rm(temp, { force: true }).catch(() => {});
  try {
    await handle.writeFile(text);
    await handle.sync();
  } catch (err) {
    await handle.close().catch(() => {});
    await discard();
    throw err;
  }
  await handle.close();
  try {
    await fs.promises.rename(temp, resolved);
  } catch (err) {
    await discard();
    throw err;
  }
}

/** @param {unknown} err */
export function describeFsError(err) {
  switch (/** @type {NodeJS.ErrnoException} */ (err).code) {
    case 'ENOENT':
      return 'no such file or directory';
    case 'EACCES':
    case 'EPERM':
      return 'permission denied';
    case 'EISDIR':
      return 'is a directory';
    case 'EROFS':
      return 'read-only file system';
    case 'ENOSPC':
      return 'no space left on the device';
    default:
      return /** @type {Error} */ (err).message;
  }
}
