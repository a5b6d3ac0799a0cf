// The settings of a reduction from `reducePython()`'s options: each one checked (a
// usage or input error for a bad one, before anything runs), the program read, and the
// defaults that depend on the machine (the memory allowance, forking ahead) decided.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BACKENDS } from './backends/index.js';
import { jobDevices, parseGpus } from './devices.js';
import { Launcher, shippedRun } from './launcher.js';
import { AutoddError } from './errors.js';
import { checkOutput, readSource } from './files.js';
import { realpath } from './python.js';
import { checkJobs, checkSignal } from './reduce.js';

/**
 * The longest timeout, in seconds: Node's timers take at most 2^31 - 1 ms (24.8 days),
 * and a run's timers add their grace to it.
 */
const MAX_TIMEOUT = 1_000_000;
const MIN_TIMEOUT = 0.5;
/** Runs of one candidate at most: a flaky failure shows in far fewer. */
const MAX_RETRIES = 100;

/** @typedef {import('../index.js').ReducePythonOptions} PythonReduceOptions */

/**
 * By default the jobs' candidates may allocate half the machine's memory between
 * them (each beyond what its worker holds)…
 */
const MEMORY_SHARE = 0.5;
/** …but each at least this much. */
const MEMORY_FLOOR_MIB = 2048;
/** A failure about memory: a candidate stopped by the limit could fake it. */
const MEMORY_FAILURE = /MemoryError|out of memory|cannot allocate memory/i;
export const MIB = 1024 * 1024;

/**
 * Checks the options (a usage or input error for a bad one), reads the program, and
 * gives the settings of the reduction.
 * @param {PythonReduceOptions} options
 */
export function settingsOf(options) {
  const { errMsg, output } = options;
  if (typeof errMsg !== 'string') throw new AutoddError('usage', 'errMsg must be a string');
  if (errMsg.trim() === '') {
    // An empty message occurs in every output: everything would reduce to nothing.
    throw new AutoddError('usage', 'the error message must not be empty or only spaces');
  }
  if (output !== undefined && typeof output !== 'string') {
    throw new AutoddError('usage', 'output must be a file name');
  }
  checkSignal(options.signal);
  const backendName = options.backend ?? 'runner';
  if (!BACKENDS.includes(backendName)) {
    throw new AutoddError('usage', `unknown backend '${backendName}' (use ${BACKENDS.join(' or ')})`);
  }
  const timeout = options.timeout ?? 60;
  if (typeof timeout !== 'number' || !(timeout > 0) || !Number.isFinite(timeout)) {
    throw new AutoddError('usage', `the timeout must be a positive number of seconds, not ${timeout}`);
  }
  if (timeout < MIN_TIMEOUT) {
    // Below it the worker's start or the fresh python3's check times out, which reads
    // as the original not reproducing.
    throw new AutoddError(
      'usage',
      `the timeout must be at least ${MIN_TIMEOUT} seconds (Python takes about 0.1 s to start, isolated), not ${timeout}`,
    );
  }
  if (timeout > MAX_TIMEOUT) {
    // Node's timers take at most 2^31 - 1 ms; a longer one fires at once.
    throw new AutoddError(
      'usage',
      `the timeout must be at most ${MAX_TIMEOUT} seconds (11 days), not ${timeout}`,
    );
  }
  const jobs = checkJobs(options.jobs);
  const jobCap = 4 * os.availableParallelism();
  if (jobs > jobCap && !options.forceJobs) {
    throw new AutoddError(
      'usage',
      `${jobs} jobs is more than 4 times the ${os.availableParallelism()} CPUs this process may use (${jobCap}); ` +
        'force it with --force-jobs (forceJobs)',
    );
  }
  if (options.stdin !== undefined) checkStdin(options.stdin);
  const warmUp = options.warmUp === undefined ? undefined : warmUpOf(options.warmUp, backendName);
  const retries = options.retries ?? 1;
  if (!Number.isInteger(retries) || retries < 1 || retries > MAX_RETRIES) {
    throw new AutoddError(
      'usage',
      `retries must be a whole number of runs from 1 to ${MAX_RETRIES}, not ${String(retries)}`,
    );
  }
  const sameError = options.sameError === true;
  const gpus =
    options.gpus === undefined ? null : parseGpus(options.gpus, options.env, options.launcher !== undefined);
  /** Each job's device (`gpus`), or null. */
  const devices = gpus && jobDevices(gpus, jobs);
  const launcher = launcherOf(options);
  if (backendName === 'subproc' && options.memoryLimit !== undefined && options.memoryLimit !== false) {
    throw new AutoddError('usage', 'the memory limit needs the runner backend');
  }
  // The subproc backend has no way to limit memory (the default is then no limit).
  const memoryLimit =
    backendName === 'runner' ? memoryAllowance(options.memoryLimit, jobs, errMsg) : undefined;
  // Ahead of a run's turn, a launch through a launcher starts while the run before
  // goes on (the subproc backend's candidates, the final check's runs), which mostly
  // waits: by default where it connects to a host (`ssh {host}`), not where it may hold
  // an allocation while it waits, one that another job's run could use (`srun`).
  const launchAhead = launcher !== undefined && (options.prefork ?? launcher.hosts.length > 0);
  // The runner forks a candidate's process ahead, which uses a CPU beside the
  // candidate's: only where each job has two (and they are this machine's).
  const prefork = launcher
    ? backendName === 'subproc' && launchAhead
    : backendName === 'runner' && (options.prefork ?? os.availableParallelism() >= 2 * jobs);
  if ((options.file === undefined) === (options.source === undefined)) {
    throw new AutoddError('usage', 'give exactly one of file and source');
  }
  const source = options.file !== undefined ? readSource(options.file) : String(options.source);
  if (output)
    checkOutput(output, options.file, 'OUTPUT', { '--stdin': options.stdin, '--warm-up': options.warmUp });
  return {
    errMsg,
    backendName,
    timeout,
    jobs,
    retries,
    sameError,
    memoryLimit,
    prefork,
    launchAhead,
    source,
    gpus,
    devices,
    launcher,
    warmUp,
  };
}

/**
 * The program of `--warm-up`, read here (its text travels to each worker, through a
 * launcher too): a file the runner's workers run once before their first fork.
 * @param {unknown} file
 * @param {string} backendName
 */
function warmUpOf(file, backendName) {
  if (typeof file !== 'string' || file === '') throw new AutoddError('usage', 'warmUp must name a file');
  if (backendName !== 'runner') {
    throw new AutoddError(
      'usage',
      '--warm-up needs the runner backend: subproc starts every candidate afresh',
    );
  }
  try {
    return { source: fs.readFileSync(file, 'utf8'), name: path.resolve(file) };
  } catch {
    throw new AutoddError('bad-input', `cannot read ${file} (the warm-up program)`);
  }
}

/**
 * The launcher that starts the workers elsewhere (`launcher`, `hosts`), if any.
 * @param {PythonReduceOptions} options
 */
function launcherOf(options) {
  if (options.launcher === undefined) {
    if (options.hosts !== undefined) throw new AutoddError('usage', '--hosts needs --launcher');
    if (options.launcherShell !== undefined)
      throw new AutoddError('usage', '--launcher-shell needs --launcher');
    if (options.ship?.length) {
      throw new AutoddError('usage', '--ship needs --launcher: runs here find the files beside SOURCE');
    }
    return undefined;
  }
  if (typeof options.launcher !== 'string') throw new AutoddError('usage', '--launcher must be a command');
  const hosts = typeof options.hosts === 'string' ? options.hosts.split(',') : (options.hosts ?? []);
  if (!Array.isArray(hosts) || hosts.some((h) => typeof h !== 'string')) {
    throw new AutoddError('usage', 'hosts must be host names separated by commas, or a list of them');
  }
  const ship = options.ship ?? [];
  if (!Array.isArray(ship) || ship.some((p) => typeof p !== 'string' || p === '')) {
    throw new AutoddError('usage', 'ship must be a list of paths');
  }
  // Where the program looks for its files: its own folder (sys.path[0], and most
  // programs open data relative to it or to the current folder, which is the same
  // folder on the other side).
  const home =
    options.file !== undefined ? path.dirname(realpath(path.resolve(options.file))) : process.cwd();
  if (options.launcherShell !== undefined && typeof options.launcherShell !== 'boolean') {
    throw new AutoddError('usage', 'launcherShell must be true or false');
  }
  return new Launcher({
    template: options.launcher,
    hosts,
    shell: options.launcherShell,
    python: options.python ?? 'python3',
    ship: shippedRun(ship, home),
    // Read here: the other side gets its bytes, not its path.
    stdin: options.stdin === undefined ? undefined : fs.readFileSync(String(options.stdin)),
  });
}

/**
 * Checks that `--stdin` names a readable file.
 * @param {unknown} file
 */
function checkStdin(file) {
  if (typeof file !== 'string' || file === '') throw new AutoddError('usage', 'stdin must name a file');
  try {
    if (!fs.statSync(file).isFile()) throw new Error('not a file');
    fs.accessSync(file, fs.constants.R_OK);
  } catch {
    throw new AutoddError('bad-input', `cannot read ${file} (for the standard input)`);
  }
}

/**
 * The bytes each candidate may allocate (undefined: no limit) for the option
 * `memoryLimit` (MiB, false, or undefined for the default).
 * @param {unknown} option
 * @param {number} jobs
 * @param {string} errMsg
 * @returns {number | undefined}
 */
function memoryAllowance(option, jobs, errMsg) {
  if (option === false) return undefined;
  if (option === undefined) {
    if (MEMORY_FAILURE.test(errMsg)) return undefined;
    return Math.max(MEMORY_FLOOR_MIB * MIB, Math.floor((os.totalmem() * MEMORY_SHARE) / jobs));
  }
  if (typeof option !== 'number' || !(option > 0) || !Number.isFinite(option)) {
    throw new AutoddError(
      'usage',
      `the memory limit must be a positive number of MiB, not ${String(option)}`,
    );
  }
  return Math.round(option * MIB);
}
