// The Python side of a reduction: finding a working interpreter, and the private
// workspace every candidate runs in (temp folder, one folder per job, the
// environment with the `__freeze__` modules on PYTHONPATH).

import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { onDevice } from './devices.js';
import { AutoddError } from './errors.js';

/** host-node/python: the worker and the `autodd` / `tilelang` stand-in packages. */
export const PYTHON_DIR = fileURLToPath(new URL('../python/', import.meta.url));
/**
 * Holds only the `autodd` package (its `__freeze__` marker): what a result that keeps
 * freeze markers needs on PYTHONPATH, and nothing else.
 */
export const FREEZE_DIR = path.join(PYTHON_DIR, 'freeze');
/** The `tilelang` stand-in's folder (for `from tilelang.autodd import __freeze__`). */
const STANDINS_DIR = path.join(PYTHON_DIR, 'standins');
/** The launcher and module that isolate candidates from the user's files. */
const SANDBOX_PY = path.join(PYTHON_DIR, 'autodd_runner', 'sandbox.py');

/**
 * Python's arguments to run sandbox.py with `args`: imported, so that its cached
 * bytecode is used (a script is compiled at every start, some 6 ms), from its folder
 * put after the standard library on `sys.path` (an argument, whose bytes Python keeps
 * whatever the locale, unlike the code's).
 * @param {string[]} args
 */
export function sandboxArgs(...args) {
  const code =
    'import sys; sys.path.append(sys.argv.pop(1)); import sandbox; sys.exit(sandbox.main(sys.argv[1:]))';
  return ['-I', '-S', '-c', code, path.dirname(SANDBOX_PY), ...args];
}

/**
 * How one run is isolated (see python/autodd_runner/sandbox.py).
 * @typedef {object} SandboxConfig
 * @property {string} scratch an empty folder the run mounts its private tmpfs on
 * @property {string[]} writable folders the run sees a private, writable copy of
 * @property {string | null} runAs where the run's program is placed and run from
 * @property {string} cwd the run's working directory
 */

/**
 * @typedef {object} PythonInfo
 * @property {string} version e.g. `3.11.7`
 * @property {string} executable the interpreter's real path (sys.executable)
 * @property {boolean} hasTilelang a real `tilelang` is importable
 * @property {boolean} hasAutodd a real `autodd` Python package is importable
 */

/**
 * Removes the workspace, and OUTPUT's half-written temp files, once this process is
 * gone without doing so itself (killed by SIGKILL): it waits for the end of its stdin,
 * which this process holds open, then for the workers, which notice the same end.
 */
const JANITOR = [
  'import glob, os, shutil, sys, time',
  'sys.stdin.buffer.read()',
  'time.sleep(0.3)',
  'shutil.rmtree(sys.argv[1], ignore_errors=True)',
  'for tmp in glob.glob(sys.argv[2]) if len(sys.argv) > 2 else []:',
  '    os.remove(tmp)',
].join('\n');

/** The largest program folder copied for each job where runs cannot be isolated. */
const COPY_LIMIT_BYTES = 256 * 2 ** 20;

/** A Python that does not answer this simple question within this is not usable. */
const PROBE_TIMEOUT_MS = 30_000;

const PROBE = [
  'import sys, importlib.util as u',
  // `-c` puts the working directory first on sys.path; a script run does not.
  'sys.path.pop(0)',
  'print(sys.version.split()[0])',
  "print(u.find_spec('tilelang') is not None)",
  "print(u.find_spec('autodd') is not None)",
  'print(sys.executable)',
].join('\n');

/**
 * Checks that `python` runs and is Python 3. Throws `no-python` otherwise.
 * @param {string} python
 * @param {{ cwd?: string, env?: NodeJS.ProcessEnv }} [options]
 * @returns {Promise<PythonInfo>}
 */
export function probePython(python, options = {}) {
  return new Promise((resolve, reject) => {
    const fail = (/** @type {string} */ why) =>
      reject(new AutoddError('no-python', `cannot run Python '${python}': ${why}`));
    /** @type {import('node:child_process').ChildProcess} */
    let child;
    try {
      child = spawn(python, ['-c', PROBE], {
        cwd: options.cwd,
        env: options.env,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
    } catch (err) {
      fail(/** @type {Error} */ (err).message);
      return;
    }
    const timer = setTimeout(() => child.kill('SIGKILL'), PROBE_TIMEOUT_MS);
    child.on('close', () => clearTimeout(timer));
    child.on('error', () => clearTimeout(timer));
    let out = '';
    child.stdout?.on('data', (d) => (out += d));
    child.stderr?.resume();
    child.on('error', (err) => {
      const code = /** @type {NodeJS.ErrnoException} */ (err).code;
      fail(code === 'ENOENT' ? 'not found' : code === 'EACCES' ? 'permission denied' : err.message);
    });
    child.on('close', (status) => {
      const [version, tilelang, autodd, executable] = out.trim().split('\n');
      if (status !== 0 || !version?.startsWith('3.')) {
        fail('it does not look like Python 3');
        return;
      }
      resolve({
        version,
        // Wrappers such as pyenv's shims cost a shell start per run; the resolved
        // interpreter is the same one without it.
        // Python leaves sys.executable empty when it cannot find itself (an env
        // without PATH); the sandbox then needs the path that was run.
        executable: path.isAbsolute(executable ?? '') ? executable : whichPython(python, options),
        hasTilelang: tilelang === 'True',
        hasAutodd: autodd === 'True',
      });
    });
  });
}

/**
 * @typedef {object} WorkspaceOptions
 * @property {string} python
 * @property {number} jobs
 * @property {string} [cwd] working directory of every run; the invoking one by default
 * @property {string} [sourcePath] the original program: its name is reused so tracebacks
 *   name the same file (its folder, or a copy, is each run's `sys.path[0]`, as in
 *   `python3 SOURCE`; on PYTHONPATH only with `sandbox: false`, since there a `json.py`
 *   beside it shadows the standard library's for Python's own start and the worker)
 * @property {NodeJS.ProcessEnv} [env] the environment of the runs; this process's by default
 * @property {boolean} [sandbox] isolate every run from the user's files, where this
 *   machine allows it (default true; see `isolated` and `sandboxProblem`)
 * @property {string} [outputPath] the result's file: its folder is among those a run
 *   sees a private copy of
 * @property {string} [stdin] a file fed to every run's standard input
 * @property {string[]} [devices] each job's GPU (`--gpus`): its runs see only that one
 */

/**
 * The file `python` names, as a spawn with `options` finds it (its env's PATH, else
 * this process's); `python` itself when no such file is found.
 * @param {string} python
 * @param {{ cwd?: string, env?: NodeJS.ProcessEnv }} options
 */
function whichPython(python, options) {
  if (python.includes('/')) return path.resolve(options.cwd ?? '.', python);
  const dirs = (options.env?.PATH ?? process.env.PATH ?? '').split(path.delimiter).filter(Boolean);
  for (const dir of dirs) {
    const file = path.resolve(options.cwd ?? '.', dir, python);
    try {
      fs.accessSync(file, fs.constants.X_OK);
      if (fs.statSync(file).isFile()) return file;
    } catch {
      // not here
    }
  }
  return python;
}

/**
 * Where candidates run: a private temp folder, removed by `close()`.
 */
export class Workspace {
  /**
   * Checks the interpreter (throws `no-python`), then makes the folder.
   * @param {WorkspaceOptions} options
   */
  static async create(options) {
    const base = options.env ?? process.env;
    const info = await probePython(options.python, { cwd: options.cwd, env: base });
    const workspace = new Workspace({ ...options, info });
    if (options.sandbox !== false) {
      try {
        workspace.sandboxProblem = await workspace.probeSandbox();
      } catch (err) {
        workspace.close();
        throw err;
      }
      workspace.isolated = workspace.sandboxProblem === null;
      if (!workspace.isolated && workspace.programDir) {
        try {
          workspace.copyProgramDir();
        } catch (err) {
          workspace.close();
          throw err;
        }
      }
    }
    return workspace;
  }

  /** @param {WorkspaceOptions & { info: PythonInfo }} options */
  constructor({ python, info, jobs, cwd, sourcePath, env, outputPath, stdin, devices, sandbox }) {
    /** The interpreter every run uses. */
    this.python = info.executable || python;
    this.info = info;
    this.cwd = cwd ?? process.cwd();
    this.dir = fs.mkdtempSync(path.join(os.tmpdir(), 'autodd-'));
    this.fileName = sourcePath ? path.basename(sourcePath) : 'candidate.py';
    /** One folder per job, so concurrent candidates never share a file. */
    this.jobDirs = Array.from({ length: jobs }, (_, i) => {
      const dir = path.join(this.dir, `job${i}`);
      fs.mkdirSync(dir);
      return dir;
    });
    // Only the stand-ins that are not installed for real: a real tilelang must win.
    const shims = path.join(this.dir, 'pythonpath');
    fs.mkdirSync(shims);
    if (!info.hasAutodd) fs.symlinkSync(path.join(FREEZE_DIR, 'autodd'), path.join(shims, 'autodd'));
    if (!info.hasTilelang) {
      fs.symlinkSync(path.join(STANDINS_DIR, 'tilelang'), path.join(shims, 'tilelang'));
    }
    const base = env ?? process.env;
    // With --no-sandbox a candidate runs from its job's folder, which holds nothing
    // else: the program's folder must be on PYTHONPATH for its modules.
    const sourceDir = sandbox === false && sourcePath ? path.dirname(path.resolve(sourcePath)) : undefined;
    const pythonPath = [shims, sourceDir, base.PYTHONPATH];
    /** The environment of a run as a user would start it. */
    this.plainEnv = {
      ...base,
      PYTHONPATH: joinPath(pythonPath),
      // glibc writes fatal messages (e.g. `free(): invalid pointer`) to the tty otherwise.
      LIBC_FATAL_STDERR_: '1',
      // Python 3.13 colors tracebacks when FORCE_COLOR is set, even into a pipe: the
      // escapes would hide the frames and the exception type from the output scan.
      PYTHON_COLORS: '0',
    };
    /**
     * The environment of the reduction's runs: one string-hash seed for all of them
     * (the user's `PYTHONHASHSEED`, else 0), so a candidate's verdict does not depend
     * on which worker ran it, `-j N` follows the search of `-j 1`, and the same input
     * gives the same reduction.
     * @type {NodeJS.ProcessEnv}
     */
    this.env = { ...this.plainEnv, PYTHONHASHSEED: base.PYTHONHASHSEED ?? '0' };
    /** @type {string[] | null} each job's GPU (`--gpus`), or null */
    this.devices = devices ?? null;
    /** Each job's environment: the reduction's, with only the job's GPU visible. */
    this.jobEnvs = Array.from({ length: jobs }, (_, slot) => this.onJobDevice(this.env, slot));
    /** The user's own environment, for the final check of the result. */
    this.userEnv = { ...base, LIBC_FATAL_STDERR_: '1', PYTHON_COLORS: '0' };
    /**
     * The user's environment with the `autodd` package on PYTHONPATH, and the `tilelang`
     * stand-in where no real tilelang is installed: for a result that keeps freeze
     * markers, imported from either.
     */
    this.freezeEnv = {
      ...this.userEnv,
      PYTHONPATH: joinPath([FREEZE_DIR, info.hasTilelang ? undefined : STANDINS_DIR, base.PYTHONPATH]),
    };
    /** @type {(number | undefined)[]} open files of the jobs, see `write` */
    this.fds = new Array(jobs).fill(undefined);
    /** @type {number[]} the size of each job's file */
    this.sizes = new Array(jobs).fill(0);
    /** Whether runs are isolated from the user's files (set by `create`). */
    this.isolated = false;
    /** @type {string | null} why runs could not be isolated, if they could not */
    this.sandboxProblem = null;
    /** @type {string[]} writable folders runs see read-only (see `probeSandbox`) */
    this.refused = [];
    /** @type {Map<string, SandboxConfig>} see `sandboxConfig` */
    this.sandboxConfigs = new Map();
    /** The program's own path, where an isolated run places and runs its candidate. */
    // Resolved: a symlink's target is what Python runs, and its folder is sys.path[0].
    this.runAs = sourcePath ? realpath(path.resolve(sourcePath)) : null;
    /** @type {string | null} a file fed to every run's standard input */
    this.stdin = stdin ? path.resolve(stdin) : null;
    /** @type {string[] | null} unisolated, each job's copy of the program's folder */
    this.copies = null;
    /** The program's folder. */
    this.programDir = this.runAs ? path.dirname(this.runAs) : null;
    /** The folders an isolated run sees a private, writable copy of. */
    this.writable = [
      this.programDir ?? undefined,
      outputPath && path.dirname(path.resolve(outputPath)),
      this.cwd,
      os.homedir(),
      os.tmpdir(),
      '/tmp',
      '/var/tmp',
    ].filter(/** @returns {dir is string} */ (dir) => typeof dir === 'string' && dir !== '');
    this.closed = false;
    openWorkspaces.add(this);
    // Its own session: a Ctrl-C at the terminal must not stop it before it is needed.
    const pattern =
      outputPath &&
      path.join(
        path.dirname(path.resolve(outputPath)),
        `.${path.basename(outputPath)}.autodd-${process.pid}-*.tmp`,
      );
    this.janitor = spawn(this.python, ['-I', '-S', '-c', JANITOR, this.dir, ...(pattern ? [pattern] : [])], {
      detached: true,
      stdio: ['pipe', 'ignore', 'ignore'],
    });
    this.janitor.on('error', () => {});
    this.janitor.stdin?.on('error', () => {});
    this.janitor.unref();
    /** @type {import('node:net').Socket} */ (this.janitor.stdin)?.unref();
  }

  /**
   * The file a candidate of job `slot` runs from.
   * @param {number} slot
   */
  file(slot) {
    return path.join(this.copies?.[slot] ?? this.jobDirs[slot], this.fileName);
  }

  /**
   * The working directory of job `slot`'s runs: the invoking one, or, when that is the
   * program's folder and the job runs in a copy of it, the copy.
   * @param {number} slot
   */
  runCwd(slot) {
    const copy = this.copies?.[slot];
    return copy && this.programDir && path.resolve(this.cwd) === this.programDir ? copy : this.cwd;
  }

  /**
   * Where runs cannot be isolated, each job runs in a copy of the program's folder, so
   * a candidate that deletes or rewrites the files beside it harms only the copy. The
   * copy is bounded (COPY_LIMIT_BYTES): a larger folder is refused with a message.
   */
  copyProgramDir() {
    const from = /** @type {string} */ (this.programDir);
    let bytes = 0;
    const count = (/** @type {string} */ dir) => {
      for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
        const full = path.join(dir, entry.name);
        if (entry.isDirectory()) count(full);
        else if (entry.isFile()) bytes += fs.statSync(full).size;
        if (bytes > COPY_LIMIT_BYTES) {
          throw new AutoddError(
            'bad-input',
            `runs cannot be isolated here (${this.sandboxProblem}), and ${from} is too large to copy for each job ` +
              `(over ${COPY_LIMIT_BYTES / 2 ** 20} MiB): move the program to a smaller folder, or give --no-sandbox`,
          );
        }
      }
    };
    count(from);
    this.copies = this.jobDirs.map((dir) => {
      const copy = path.join(dir, 'program');
      fs.cpSync(from, copy, { recursive: true, verbatimSymlinks: true });
      return copy;
    });
  }

  /**
   * How the runs of job `slot` are isolated; null when they are not.
   * @param {number | 'final' | 'probe'} slot `final`: the check of the result
   * @param {string} [runAs] where the program runs from (default: the program's path)
   * @returns {SandboxConfig | null}
   */
  sandbox(slot, runAs) {
    return this.isolated ? this.sandboxConfig(slot, runAs ?? this.runAs) : null;
  }

  /**
   * The isolation config of job `slot`, made (with its scratch folder) once, not for
   * every run.
   * @param {number | 'final' | 'probe'} slot
   * @param {string | null} runAs
   * @returns {SandboxConfig}
   */
  sandboxConfig(slot, runAs) {
    const key = `${slot}\0${runAs}`;
    let config = this.sandboxConfigs.get(key);
    if (!config) {
      const scratch = path.join(this.dir, `scratch-${slot}`);
      fs.mkdirSync(scratch, { recursive: true });
      config = { scratch, writable: this.writable, runAs, cwd: this.cwd };
      this.sandboxConfigs.set(key, config);
    }
    return config;
  }

  /**
   * Tries to isolate a process here: null if it works, else why not.
   * @returns {Promise<string | null>}
   */
  probeSandbox() {
    if (process.platform !== 'linux')
      return Promise.resolve(`isolation needs Linux, not ${process.platform}`);
    // For the tests of the fallback, on machines that do isolate.
    if (process.env.AUTODD_NO_NAMESPACES) return Promise.resolve('AUTODD_NO_NAMESPACES is set');
    const config = this.sandboxConfig('probe', this.runAs);
    return new Promise((resolve) => {
      const child = spawn(this.python, sandboxArgs('--probe', JSON.stringify(config)), {
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      const timer = setTimeout(() => child.kill('SIGKILL'), PROBE_TIMEOUT_MS);
      let out = '';
      child.stdout?.on('data', (d) => (out += d));
      child.stderr?.on('data', (d) => (out += d));
      child.on('error', (err) => {
        clearTimeout(timer);
        resolve(err.message);
      });
      child.on('close', (status) => {
        clearTimeout(timer);
        const last = out.trim().split('\n').pop() ?? '';
        if (status !== 0) {
          resolve(last || `the probe exited with ${status}`);
          return;
        }
        // The folders the kernel would not overlay (a mount made outside inside them):
        // runs see them read-only.
        /** @type {string[]} */
        const refused = JSON.parse(last || '[]');
        this.refused = refused;
        this.writable = this.writable.filter((dir) => !refused.includes(realpath(dir)));
        const home = this.runAs ? path.dirname(this.runAs) : null;
        if (home && !this.writable.some((dir) => inside(home, realpath(dir)))) {
          resolve(`the program's folder ${home} holds a mount that cannot be overlaid`);
          return;
        }
        resolve(null);
      });
    });
  }

  /**
   * Where the runner worker of job `slot` keeps the pid of the candidate it runs.
   * @param {number} slot
   */
  pidFile(slot) {
    return path.join(this.dir, `job${slot}.pid`);
  }

  /**
   * `env` for job `slot`'s processes: with only the job's GPU visible (see `--gpus`).
   * @param {NodeJS.ProcessEnv} env
   * @param {number} slot
   */
  onJobDevice(env, slot) {
    return onDevice(env, this.devices?.[slot]);
  }

  /**
   * Puts `source` into the file of job `slot` and returns its path. The file stays
   * open and is overwritten in place, then cut to length if it shrank: truncating a
   * written file to zero (`O_TRUNC`) makes ext4 flush it, about 0.25 ms, a tenth of a
   * small candidate's run.
   * @param {number} slot
   * @param {string} source
   */
  write(slot, source) {
    const file = this.file(slot);
    let fd = this.fds[slot];
    if (fd === undefined) {
      fd = fs.openSync(file, 'w');
      this.fds[slot] = fd;
    }
    const bytes = Buffer.from(source);
    let done = 0;
    while (done < bytes.length) done += fs.writeSync(fd, bytes, done, bytes.length - done, done);
    // Never truncated to zero first: that is what makes ext4 flush.
    if (bytes.length < this.sizes[slot]) fs.ftruncateSync(fd, bytes.length);
    this.sizes[slot] = bytes.length;
    return file;
  }

  close() {
    if (this.closed) return;
    this.closed = true;
    openWorkspaces.delete(this);
    for (const fd of this.fds) if (fd !== undefined) fs.closeSync(fd);
    fs.rmSync(this.dir, { recursive: true, force: true });
    // Nothing left for it to do.
    this.janitor.kill('SIGKILL');
  }
}

/** @type {Set<Workspace>} */
const openWorkspaces = new Set();
// An exit that skipped cleanup (a second Ctrl-C) still leaves no temp folder behind.
process.on('exit', () => {
  for (const workspace of openWorkspaces) workspace.close();
});

/**
 * A path with its symlinks resolved (itself if it does not exist).
 * @param {string} p
 */
export function realpath(p) {
  try {
    return fs.realpathSync(p);
  } catch {
    return p;
  }
}

/**
 * Whether `dir` is `parent` or inside it.
 * @param {string} dir
 * @param {string} parent
 */
export function inside(dir, parent) {
  const rel = path.relative(parent, dir);
  return rel !== '..' && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel);
}

/** @param {(string | undefined)[]} dirs */
function joinPath(dirs) {
  return dirs.filter(Boolean).join(path.delimiter);
}
