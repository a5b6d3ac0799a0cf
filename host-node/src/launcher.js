// Runner workers started through a launcher the user's cluster already has
// (`--launcher 'ssh {host}'`, `srun …`, `kubectl exec -i {host} --`, `docker exec -i
// {host}`), one per job, with `--hosts` filling `{host}` job by job. No file is shared:
// the worker's code and each candidate's source travel over the launcher's stdin and
// stdout (see python/autodd_boot.py).

import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { AutoddError } from './errors.js';
import { describeFsError } from './files.js';
import { inside, PYTHON_DIR } from './python.js';

/**
 * The code a remote `python3 -c` runs: python/autodd_boot.py, as one line of only
 * letters, digits and `_+/=();,."` (compressed, in base64), which any remote shell
 * (sh, bash, csh) passes on unchanged within single quotes.
 */
function bootCode() {
  const packed = zlib
    .deflateSync(fs.readFileSync(path.join(PYTHON_DIR, 'autodd_boot.py')))
    .toString('base64');
  return `import binascii,zlib;exec(zlib.decompress(binascii.a2b_base64("${packed}")))`;
}

/**
 * What the remote side gets, beside the source of each candidate: the worker's package,
 * and the stand-ins for `autodd` (freeze markers) and `tilelang` that local runs find on
 * PYTHONPATH, under `shims/`.
 */
const SHIPPED = [
  ['autodd_runner', 'autodd_runner'],
  ['freeze/autodd', 'shims/autodd'],
  ['standins/tilelang', 'shims/tilelang'],
];

/**
 * The variables of the reduction's environment that a remote run must see too, set by
 * `env` before Python starts (the hash seed is read at start). The devices' only with
 * `--gpus`: otherwise the other side keeps what its own allocation chose.
 */
const FORWARDED = ['PYTHONHASHSEED', 'PYTHON_COLORS', 'LIBC_FATAL_STDERR_'];
const DEVICES = ['CUDA_VISIBLE_DEVICES', 'ROCR_VISIBLE_DEVICES', 'HIP_VISIBLE_DEVICES'];

/**
 * The words of a command line, split as a POSIX shell splits them (quotes and
 * backslashes; no expansions).
 * @param {string} text
 * @returns {string[]}
 */
export function splitWords(text) {
  /** @type {string[]} */
  const words = [];
  let word = '';
  let inWord = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === "'") {
      const end = text.indexOf("'", i + 1);
      if (end < 0) throw new AutoddError('usage', `--launcher has an unclosed ' quote: ${text}`);
      word += text.slice(i + 1, end);
      inWord = true;
      i = end;
    } else if (c === '"') {
      let j = i + 1;
      for (; j < text.length && text[j] !== '"'; j++) {
        if (text[j] === '\\' && j + 1 < text.length && '"\\$`'.includes(text[j + 1])) j++;
        word += text[j];
      }
      if (j >= text.length) throw new AutoddError('usage', `--launcher has an unclosed " quote: ${text}`);
      inWord = true;
      i = j;
    } else if (c === '\\' && i + 1 < text.length) {
      word += text[++i];
      inWord = true;
    } else if (/\s/.test(c)) {
      if (inWord) words.push(word);
      word = '';
      inWord = false;
    } else {
      word += c;
      inWord = true;
    }
  }
  if (inWord) words.push(word);
  return words;
}

/**
 * `word` quoted for a POSIX shell.
 * @param {string} word
 */
function shellQuote(word) {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}

/**
 * `words` as one line a user can paste into a POSIX shell: each word quoted, except
 * the input redirection `<` and the name of a leading `NAME=value` assignment.
 * @param {string[]} words
 */
export function shellLine(words) {
  return words
    .map((w, i) => {
      if (w === '<') return w;
      const assignment = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/s.exec(w);
      return assignment && i === 0 ? `${assignment[1]}=${shellQuote(assignment[2])}` : shellQuote(w);
    })
    .join(' ');
}

/** The most of what the other side said that a message quotes. */
const MESSAGE_CHARS = 400;

/** Commands that hand the words after them to a shell on the other side. */
const REMOTE_SHELLS = ['ssh', 'autossh'];

export class Launcher {
  /**
   * @param {object} options
   * @param {string} options.template the command before the worker's, `{host}` where a
   *   host goes
   * @param {readonly string[]} [options.hosts] job k's host is the k-th, round-robin
   * @param {string} options.python the interpreter on the other side
   * @param {Record<string, string>} [options.ship] what goes beside the program there: path
   *   relative to its folder → base64 of the contents (see `shippedRun`)
   * @param {Buffer} [options.stdin] what every run there reads on its standard input (`--stdin`)
   * @param {boolean} [options.shell] whether the launcher hands the worker's command to a
   *   shell there as one line (default: when the template has an ssh or autossh word)
   */
  constructor({ template, hosts = [], python, ship = {}, stdin, shell }) {
    this.words = splitWords(template);
    if (this.words.length === 0) throw new AutoddError('usage', '--launcher must name a command');
    // `{hosts}`, `{HOST}`: a mistyped placeholder would reach the launcher as a host name.
    // A shell's `${name}` is left alone.
    const unknown = this.words
      .flatMap((w) => [...w.matchAll(/(?<!\$)\{([A-Za-z_][A-Za-z0-9_]*)\}/g)])
      .find((m) => m[1] !== 'host');
    if (unknown) {
      throw new AutoddError('usage', `--launcher has ${unknown[0]}: the only placeholder is {host}`);
    }
    const wantsHost = this.words.some((w) => w.includes('{host}'));
    if (wantsHost && hosts.length === 0) {
      throw new AutoddError('usage', '--launcher has {host}: name the hosts with --hosts h1,h2,…');
    }
    if (!wantsHost && hosts.length > 0) {
      throw new AutoddError('usage', "--hosts needs a --launcher with {host} where a host's name goes");
    }
    if (hosts.some((h) => h === '' || /\s/.test(h))) {
      throw new AutoddError(
        'usage',
        `--hosts takes host names separated by commas, not '${hosts.join(',')}'`,
      );
    }
    this.hosts = [...hosts];
    this.python = python;
    /**
     * ssh hands its command to the remote shell as one line: the words are quoted for it,
     * also when ssh is not the template's first word (`timeout 60 ssh {host}`, `autossh`).
     */
    this.viaShell = shell ?? this.words.some((w) => REMOTE_SHELLS.includes(path.basename(w)));
    // Made once, not at every worker's start (nor at autodd's start without a launcher).
    this.boot = bootCode();
    /** What goes to every run there, beside the program: `--ship`'s files and `--stdin`'s bytes. */
    this.shared = { run: ship, ...(stdin ? { stdin: stdin.toString('base64') } : {}) };
    /** What each worker reads before the protocol: the files it needs (see python/autodd_boot.py). */
    this.header = packHeader({ files: shippedFiles(), ...this.shared });
    /** What a single run (the subproc backend) needs: the stand-ins, and the isolation. */
    this.shims = {
      ...shippedFiles((from) => !from.startsWith('autodd_runner')),
      'autodd_runner/sandbox.py': fs.readFileSync(
        path.join(PYTHON_DIR, 'autodd_runner', 'sandbox.py'),
        'utf8',
      ),
    };
  }

  /**
   * What a single run there reads on its stdin (the subproc backend): the stand-ins,
   * the shipped files, and the program, to run as FILENAME within `timeoutMs` (in a
   * view of its own with `isolate`, where that kernel allows), saying how it ended in
   * lines marked with `nonce`.
   * @param {string} fileName
   * @param {string} source
   * @param {{ nonce: string, timeoutMs: number, isolate?: boolean }} run
   */
  runHeader(fileName, source, { nonce, timeoutMs, isolate = false }) {
    return packHeader({
      files: this.shims,
      ...this.shared,
      candidate: { fileName, source, nonce, timeoutMs, ...(isolate ? { isolate } : {}) },
    });
  }

  /**
   * Job `slot`'s host, if the template names one.
   * @param {number} slot
   */
  host(slot) {
    return this.hosts.length ? this.hosts[slot % this.hosts.length] : undefined;
  }

  /**
   * Job `slot`'s CPU share on its host, as `-j N` keeps jobs here (see `cpu_share` in
   * the worker): `[k, n]`, the job being the k-th of the `n` of `jobs` that the template
   * sends to the same host. Undefined where the job is alone there, or the template
   * names no host (srun places each job itself: they may not share a machine).
   * @param {number} slot
   * @param {number} jobs
   * @returns {[number, number] | undefined}
   */
  share(slot, jobs) {
    const host = this.host(slot);
    if (host === undefined) return undefined;
    const same = Array.from({ length: jobs }, (_, k) => k).filter((k) => this.host(k) === host);
    return same.length > 1 ? [same.indexOf(slot), same.length] : undefined;
  }

  /**
   * The command that starts job `slot`'s worker, with `env` (the job's environment) as
   * far as the other side must see it.
   * @param {number} slot
   * @param {NodeJS.ProcessEnv} env
   * @param {boolean} devices whether the job has a GPU of its own (`--gpus`)
   * @param {'autodd-remote-worker' | 'autodd-remote-run'} [role]
   * @returns {string[]}
   */
  argv(slot, env, devices, role = 'autodd-remote-worker') {
    const settings = [...FORWARDED, ...(devices ? DEVICES : [])]
      .filter((name) => env[name] !== undefined)
      .map((name) => `${name}=${env[name]}`);
    // The last word names the process in process lists, and says what it is to do: serve
    // as a runner worker, or (`autodd-remote-run`) run one program, the subproc backend's.
    // A single run's launcher needs only the standard library: no site (its .pth files
    // can take longer than the program); the program it starts has its site.
    const flags = role === 'autodd-remote-run' ? ['-S'] : [];
    const worker = ['env', ...settings, this.python, ...flags, '-c', this.boot, role];
    return [...this.launcherWords(slot), ...(this.viaShell ? worker.map(shellQuote) : worker)];
  }

  /**
   * The template's words for job `slot`, its host filled in.
   * @param {number} slot
   */
  launcherWords(slot) {
    const host = this.host(slot) ?? '';
    return this.words.map((w) => w.replaceAll('{host}', host));
  }

  /**
   * This launcher as job `slot` uses it, for a backend of one job: what runs a program
   * on that job's host (the final check, on a host the reduction still uses).
   * @param {number} slot
   * @returns {Launcher}
   */
  only(slot) {
    const one = Object.create(this);
    one.hosts = this.hosts.length ? [this.host(slot)] : [];
    return one;
  }

  /**
   * How job `slot` runs a program there, as the final check says it: the launcher and
   * the interpreter, without the worker's start.
   * @param {number} slot
   */
  command(slot) {
    return [...this.launcherWords(slot), this.python];
  }

  /**
   * What the other side said, as a message may quote it: the worker's code, which a
   * shell there may echo whole (bash quotes the line it could not parse), as `CODE`
   * (a part of it, where only the end of the stream was kept, as `…`), and at most
   * MESSAGE_CHARS characters.
   * @param {string} text
   */
  brief(text) {
    const short = text.replaceAll(this.boot, 'CODE').replace(/[A-Za-z0-9+/=]{200,}/g, '…');
    return short.length > MESSAGE_CHARS ? `${short.slice(0, MESSAGE_CHARS - 1)}…` : short;
  }

  /**
   * A command line a user can paste to see whether job `slot`'s launcher starts Python
   * there: the launcher, then `PYTHON -V`.
   * @param {number} slot
   */
  probeLine(slot) {
    return [...this.launcherWords(slot), this.python, '-V'].map(shellQuote).join(' ');
  }
}

/**
 * The header's text: its length, a newline, then base64 of zlib of its JSON.
 * @param {object} header
 */
function packHeader(header) {
  const payload = zlib.deflateSync(JSON.stringify(header)).toString('base64');
  return `${payload.length}\n${payload}`;
}

/**
 * @param {(from: string) => boolean} [wanted] which of SHIPPED's folders
 * @returns {Record<string, string>} path on the remote side → text
 */
function shippedFiles(wanted = () => true) {
  /** @type {Record<string, string>} */
  const files = {};
  for (const [from, to] of SHIPPED) {
    if (!wanted(from)) continue;
    const dir = path.join(PYTHON_DIR, from);
    for (const name of fs.readdirSync(dir)) {
      if (name.endsWith('.py')) files[`${to}/${name}`] = fs.readFileSync(path.join(dir, name), 'utf8');
    }
  }
  return files;
}

/** More than this in all is refused: every worker's start sends it again. */
const SHIP_LIMIT = 256 * 1024 * 1024;

/**
 * The files `--ship` names, for the other side's copy of the program's folder: path
 * relative to `home` (with `/`) → base64 of the contents. A folder brings everything
 * under it but `__pycache__`. A symlink is copied as what it points to, at its own place.
 * @param {readonly string[]} paths as the user gave them (relative to the current folder)
 * @param {string} home the program's folder, symlinks resolved
 * @returns {Record<string, string>}
 */
export function shippedRun(paths, home) {
  /** @type {Record<string, string>} */
  const files = {};
  let total = 0;
  /**
   * @param {string} place where it is, its folder's symlinks resolved
   * @param {string} given how the user named it, for messages
   * @param {Set<string>} above the folders it is in, symlinks resolved (a loop ends there)
   */
  const add = (place, given, above) => {
    if (!inside(place, home)) {
      throw new AutoddError(
        'usage',
        `--ship ${given} is outside the program's folder ${home}, which the other side's copy mirrors`,
      );
    }
    const real = readable(given, () => fs.realpathSync(place));
    const stat = readable(given, () => fs.statSync(real));
    if (stat.isDirectory()) {
      if (above.has(real)) return;
      for (const name of readable(given, () => fs.readdirSync(real)).sort()) {
        if (name !== '__pycache__')
          add(path.join(place, name), path.join(given, name), new Set([...above, real]));
      }
    } else if (stat.isFile()) {
      total += stat.size;
      if (total > SHIP_LIMIT) {
        throw new AutoddError(
          'usage',
          `--ship: more than ${SHIP_LIMIT / 1024 / 1024} MiB to send at every worker's start; ship less, or keep the files where both sides see them`,
        );
      }
      files[path.relative(home, place).split(path.sep).join('/')] = readable(given, () =>
        fs.readFileSync(real),
      ).toString('base64');
    }
  };
  for (const given of paths) {
    let place;
    try {
      const absolute = path.resolve(given);
      place = path.join(fs.realpathSync(path.dirname(absolute)), path.basename(absolute));
      fs.statSync(place);
    } catch {
      throw new AutoddError('usage', `--ship ${given}: no such file or folder`);
    }
    add(place, given, new Set());
  }
  return files;
}

/**
 * What `read` returns; a file system error becomes one line naming the `--ship` path
 * (a dangling symlink in a shipped folder, a file that may not be read).
 * @template T
 * @param {string} given
 * @param {() => T} read
 * @returns {T}
 */
function readable(given, read) {
  try {
    return read();
  } catch (err) {
    throw new AutoddError('bad-input', `--ship ${given}: cannot read it: ${describeFsError(err)}`);
  }
}
