// Public API of the `autodd` package. Hand-written: this is the contract; the JSDoc
// types in src/ are checked against Node's types with `npm run typecheck`.

// The engine's types are generated from the Rust types (crates/autodd-core, by tsify)
// into pkg/autodd_wasm.d.ts; this file re-exports them.
import type { ErrorCode as EngineErrorCode, ReducerOptions, Stats } from './pkg/autodd_wasm.js';
export type { Stats, Candidate, ReducerOptions, Verdict } from './pkg/autodd_wasm.js';

/** A candidate that became the new best program. */
export interface AcceptedStep {
  id: number;
  /** The phase that proposed it. */
  phase: string;
  /** The rewrites it applied (user-visible pass names such as `stmt-remover`). */
  rewrites: string[];
  /** How many rewrite sites it applied. */
  sites: number;
  /** Size of the new best program. */
  bytes: number;
  lines: number;
  /** Time since the reduction started. */
  elapsedMs: number;
}

/** Passed to `onProgress` after every verdict. */
export interface Progress {
  /** The candidate whose verdict this is. */
  id: number;
  /** The engine's counters, fetched when first read. */
  stats: Stats;
  /** Candidates run to a verdict so far. */
  tried: number;
  elapsedMs: number;
  /** Set when this verdict accepted a candidate. */
  accepted?: AcceptedStep;
}

/**
 * Stable codes of the errors autodd throws; `message` is for people. The one list:
 * the engine's codes come from its Rust `ErrorCode`, the host's are these, and a
 * test checks that each is thrown somewhere and nothing else is.
 */
export type HostErrorCode =
  /** Bad options (an empty errMsg, jobs < 1, ...). */
  | 'usage'
  /** The program file cannot be used (missing, a directory, not UTF-8, empty). */
  | 'bad-input'
  /** The interpreter cannot be run or is not Python 3. */
  | 'no-python'
  /** The original program is not interesting (does not print errMsg, or isInteresting rejects it). */
  | 'not-reproduced'
  /** The wasm engine was not built: run scripts/build-wasm.sh nodejs. */
  | 'wasm-missing'
  /**
   * `output` (or the CLI's --report) could not be written during the reduction (a folder
   * made read-only, a full disk). It keeps the last program written whole.
   */
  | 'write-failed'
  /**
   * Every job lost its worker (a launcher's host gone) and none could be started again,
   * or with the subproc backend no job's runs could be launched any more, or Python
   * never started through the launcher for the original's check.
   */
  | 'workers-lost';

/** `internal` is a bug, never thrown as an `AutoddError`. */
export type ErrorCode = Exclude<EngineErrorCode, 'internal'> | HostErrorCode;

/** Every error autodd throws for a user's mistake. Other errors are bugs. */
export class AutoddError extends Error {
  readonly code: ErrorCode;
  /** 1-based line of a syntax error. */
  readonly line?: number;
  /** 1-based column of a syntax error, in UTF-16 code units. */
  readonly column?: number;
  /** More lines for people, e.g. the tail of the original program's output. */
  readonly details?: string;
}

export interface ReduceOptions {
  /** The Python program to reduce. */
  source: string;
  /**
   * Whether a candidate program still shows the behaviour being reduced for (any
   * truthy value counts). It must accept `source` itself. Called with up to `jobs`
   * candidates at once; `signal` aborts when the verdict is no longer wanted (a stale
   * candidate, or the reduction's `signal`). A stale evaluation keeps its job until it
   * settles, so honour the signal; once the reduction's own `signal` aborts, the
   * evaluations still going are not waited for.
   */
  isInteresting(candidateSource: string, signal: AbortSignal): Promise<unknown>;
  /** How many candidates are evaluated at once. Default 1, at most 1,024. */
  jobs?: number;
  /** Restrict the reduction to these rewrites (pass names); all by default. */
  rewrites?: string[];
  /** Called after every verdict. */
  onProgress?(progress: Progress): void;
  /**
   * Stops the reduction; the result is the best program found so far, at once, even
   * while `isInteresting` calls are going.
   */
  signal?: AbortSignal;
}

export interface ReduceResult {
  /** The smallest program found that `isInteresting` accepts. */
  source: string;
  stats: Stats;
  /** `signal` stopped the reduction before it was done. */
  interrupted: boolean;
}

/**
 * Reduces a Python program to a smaller one that `isInteresting` still accepts.
 * Rejects with an `AutoddError` (`syntax-error`, `not-reproduced`, ...) for bad input.
 */
export function reduce(options: ReduceOptions): Promise<ReduceResult>;

export interface ReducePythonOptions {
  /** The program to reduce. Give exactly one of `file` and `source`. */
  file?: string;
  /** The program's text. Give exactly one of `file` and `source`. */
  source?: string;
  /**
   * The failure: a run is interesting iff this text occurs (case-sensitively) in what
   * it writes to stdout or stderr itself, whatever its exit status. Source lines that
   * Python quotes (a traceback's frames, a SyntaxError's line, a warning's line) do
   * not count. A run that times out never is interesting.
   */
  errMsg: string;
  /**
   * Count `errMsg` in source lines that Python quotes too. Default false; a reduction
   * whose original shows `errMsg` only there falls back to it, with a warning.
   */
  matchQuotedSource?: boolean;
  /**
   * A run is interesting only if it also fails as the original did: the same exception
   * type of its last traceback, or the same signal, or (with neither) the same exit
   * status. Default false. (`class-to-base` keeps the original exception's class
   * either way.)
   */
  sameError?: boolean;
  /**
   * Runs in all of a candidate that does not reproduce before it counts as not
   * reproducing, for flaky failures; a run that reproduces counts at once. An original
   * that reproduces in only some of its runs is refused when this is 1. Default 1, at
   * most 100.
   */
  retries?: number;
  /**
   * Isolate every run from the user's files: the file system read-only, a private
   * copy-on-write view of the folders a run may write to, the program run from its own
   * path, and everything it started killed when it ends (Linux; elsewhere, or where
   * user namespaces are refused, runs are unisolated, with a warning). Default true.
   */
  sandbox?: boolean;
  /** A file fed to every run's standard input (by default runs read an empty input). */
  stdin?: string;
  /**
   * A GPU per job: job k's worker and every candidate it runs see only the k-th device
   * (round-robin when the jobs outnumber them), through `CUDA_VISIBLE_DEVICES`,
   * `ROCR_VISIBLE_DEVICES` and `HIP_VISIBLE_DEVICES`; the original's checks run on the
   * jobs' devices like candidates, and so do the final check's runs when isolated (else
   * on the first). Device indices or UUIDs (`"0,1"` or `["0", "1"]`), or
   * `"auto"`: those `CUDA_VISIBLE_DEVICES` (else `ROCR_VISIBLE_DEVICES`, else
   * `HIP_VISIBLE_DEVICES`) names, else those `nvidia-smi -L` lists. Default: the
   * environment as it is.
   */
  gpus?: string | readonly string[];
  /**
   * Start each job's runner worker through this command, as the user's cluster does:
   * `"ssh {host}"`, `"srun --nodes=1 --ntasks=1 --gpus=1"`, `"kubectl exec -i {host} --"`,
   * `"docker exec -i {host}"`. The worker's code and each candidate's source travel over
   * its stdin and stdout; the other side needs only `python` (the `python` option, as
   * named there) and writes candidates in a private temporary folder it removes at the
   * end. Candidates whose worker dies (the launcher exits, the connection drops) run
   * again on a new one. With the subproc backend the command prefixes each candidate's
   * run instead. `stdin`'s bytes are sent along.
   */
  launcher?: string;
  /** Fill `{host}` of `launcher` job by job (round-robin): `"h1,h2"` or `["h1", "h2"]`. */
  hosts?: string | readonly string[];
  /**
   * Whether `launcher` hands the worker's command to a shell on the other side as one
   * line, as ssh does, so its words are quoted for it. Default: true when the template
   * has an `ssh` or `autossh` word.
   */
  launcherShell?: boolean;
  /**
   * With `launcher`: files and folders of the program's folder (`file`'s; the current
   * folder with `source`) that the other side gets beside the program, at the same
   * place relative to it: its modules, its data.
   */
  ship?: readonly string[];
  /**
   * Allow `jobs` above 4 times the CPUs this process may use (refused otherwise); never
   * above 1,024.
   */
  forceJobs?: boolean;
  /**
   * A file replaced atomically with each smaller program that reproduced, so it always
   * holds a complete one; at the end it holds the result.
   */
  output?: string;
  /**
   * `runner` (default): one warm Python worker per job that imports the program's
   * modules once and forks a child per candidate. `subproc`: a fresh `python FILE`
   * per candidate.
   */
  backend?: 'runner' | 'subproc';
  /**
   * Seconds one run may take; its whole process group is killed after. Default 60, at
   * least 0.5, at most 1,000,000.
   */
  timeout?: number;
  /** Candidates run at once. Default 1, at most 1,024. */
  jobs?: number;
  /** The interpreter. Default `python3`. */
  python?: string;
  /** Runner backend: import the program's top-level modules once in each worker. Default true. */
  preload?: boolean;
  /** Keep `__freeze__` markers in the result instead of removing them. Default false. */
  keepFreeze?: boolean;
  /** Working directory of every run. Default: this process's. */
  cwd?: string;
  /** Environment of every run. Default: this process's. */
  env?: Record<string, string | undefined>;
  onProgress?(progress: Progress): void;
  /** Things the user should know (a failed preload import, unmatched freeze markers). */
  onWarning?(message: string): void;
  /** Called as the reduction enters each stage. */
  onPhase?(phase: 'check' | 'reduce' | 'finish'): void;
  /** Stops the reduction; `output` keeps the best program found so far. */
  signal?: AbortSignal;
  /**
   * Cap each candidate at 10 × the original's run time plus 20 ms (never above
   * `timeout`), so a candidate that hangs costs a fraction of a second, not the whole
   * timeout. Default true.
   */
  adaptiveTimeout?: boolean;
  /**
   * With `adaptiveTimeout`: once 8 candidates reproduced, cap candidates at 3 × the
   * slowest of those runs, at least 4 × the original's run time, plus 20 ms (never
   * above the original's cap). Default true.
   */
  learnTimeout?: boolean;
  /**
   * Runner, Linux: the memory, in MiB, each candidate may allocate beyond what its
   * worker holds (its heap and private writable memory, `RLIMIT_DATA`); a candidate
   * that wants more gets a `MemoryError` instead of taking the machine's memory until
   * its time limit. Default: half the machine's memory shared by the jobs, at least
   * 2048 MiB each, and no limit when `errMsg` is itself about memory (`MemoryError`,
   * `out of memory`, `cannot allocate memory`). `false`: no limit. The subproc
   * backend has no limit, and refuses a number.
   */
  memoryLimit?: number | false;
  /**
   * Propose the next candidate while the current ones run, so the engine's time
   * overlaps them. It changes nothing in the search. Default true.
   */
  lookahead?: boolean;
  /**
   * With several jobs, while a success waits on an earlier candidate that still runs
   * (often one that hangs until its time limit), or a phase's end waits on the
   * candidates out, run candidates proposed by a copy of the engine in which those
   * failed; the copy takes over if they did, and is dropped if one succeeded. It
   * changes nothing in the search. Default true.
   */
  speculate?: boolean;
  /**
   * Runner: kill a candidate as soon as it is stuck (every thread waits for an event
   * with no timeout, no child process could wake it, no CPU used), once it has run
   * twice as long as the original plus 20 ms, instead of at its time limit. Default true.
   */
  stuckDetection?: boolean;
  /**
   * Runner with several jobs: keep each job's worker, and the candidates it forks, to
   * that job's share of the CPUs this process may use (with 2 jobs on 2 CPUs, one CPU
   * each), so the jobs neither pile up on one CPU nor move between CPUs. Only when
   * there are at least as many CPUs as jobs, and only where the OS lets a process set
   * its CPU affinity (Linux). Candidates see that share as their affinity. Default true.
   */
  cpuAffinity?: boolean;
  /**
   * Runner, Linux 6.1 on: a worker holding 64 MiB or more of heap once its modules are
   * preloaded (torch) backs it with 2 MiB pages before its first fork, so each
   * candidate's fork and exit copy and drop 512 times fewer page-table entries.
   * Default true.
   */
  hugePages?: boolean;
  /**
   * Runner: a Python file each worker runs once, after preloading the program's modules
   * and before its first fork, so that what a library builds on first use (a first
   * error's backtrace tables, a registry, a JIT's caches) is built once and inherited
   * by every candidate instead of built again in each. Its output is discarded; an
   * exception stops it with a warning. The final check runs without it.
   */
  warmUp?: string;
  /**
   * Runner, Linux: fork each candidate's process while the candidate before it runs,
   * and let it compile a warm-up program meanwhile, so the fork and the page faults
   * of a fresh process's first compile happen beside the running candidate instead of
   * before the next. Default: when this process may use at least two CPUs per job (on
   * a job's only CPU that work would compete with the candidate). With one job, that
   * process also compiles the next candidate, which the engine proposes while the
   * current one runs, and runs that code if its file holds exactly that source.
   *
   * Through a `launcher`: when a run there starts (a subproc candidate, the final
   * check's first run), start the launch of the job's next run too, which waits for
   * its program on its stdin meanwhile. Default: where the template names a `{host}`
   * (a connection that waits holds nothing another job needs; an `srun` that waits may
   * hold an allocation).
   */
  prefork?: boolean;
  /**
   * Called for each candidate's run as its verdict enters the search; runs cancelled
   * as stale when cancelled, and the other runs whose verdict never counted (they
   * ended before an earlier candidate was accepted) when the search ends.
   */
  onRun?(run: RunRecord): void;
  /** Engine options, for comparisons with the tool autodd replaces. */
  engine?: EngineOptions;
}

/** One candidate's run, as `onRun` and the CLI's `--trace` see it. */
export interface RunRecord {
  id: number;
  /** The engine phase that proposed it. */
  phase: string;
  rewrites: string[];
  /** How many rewrite sites it applies at once. */
  sites: number;
  /** The candidate's size in bytes. */
  bytes: number;
  /** Whether it was interesting (and so accepted, unless it had become stale). */
  found: boolean;
  /**
   * Whether its verdict entered the search. With several jobs, a run whose candidate
   * went stale (an earlier one was accepted) does not count: it was cancelled, or it
   * ended first.
   */
  counted: boolean;
  /** `stuck`: killed (runner only) because every thread waited with no timeout. */
  /** `cancelled`: stopped as stale (its verdict no longer mattered). */
  outcome: 'exited' | 'signaled' | 'timeout' | 'stuck' | 'crashed' | 'cancelled';
  /** When it was handed to a job, in ms from the start of the search (after the check of the original). */
  startMs: number;
  /** Wall time of the run (with `retries`, of its last run). */
  ms: number;
  /** How many times it ran (more than 1 only with `retries`). */
  runs: number;
}

/** How a program failed, as the runs of it that autodd made saw it. */
export interface FailureInfo {
  /**
   * Its exception type (of the last traceback), else the signal that killed it, else
   * its exit status: `AssertionError`, `killed by SIGSEGV`, `exit status 1`.
   */
  kind: string;
  /** The exception type of its last traceback, as Python prints it. */
  exception: string | null;
  /** The first line of its own output that holds `errMsg`. */
  msgLine: string | null;
  /** Whether `errMsg` came from what it wrote itself (false: only from quoted source). */
  ownOutput: boolean;
  /** How many times it was run for this. */
  runs: number;
  /** How many of those runs reproduced. */
  reproduced: number;
}

/**
 * Switches for the engine's improvements over the reference tool (each documented in
 * `ReducerOptions`); `rewrites` and `keepClasses` are set by their own options.
 */
export type EngineOptions = Omit<ReducerOptions, 'rewrites' | 'keepClasses'>;

export interface ReducePythonResult {
  /** The result: what `output` holds. */
  source: string;
  stats: Stats;
  /** Candidates run to a verdict. */
  tried: number;
  steps: AcceptedStep[];
  /** `signal` stopped the reduction. */
  interrupted: boolean;
  /** The original program was run and reproduced (only then is `output` written). */
  checked: boolean;
  /**
   * Whether the result reproduced when run again in a fresh process, as many times as
   * the original was checked (true if any of those runs did; `failure.result` has the
   * count); null if interrupted.
   */
  reproduced: boolean | null;
  /** How the original failed when checked, and the result in the final check. */
  failure: { original: FailureInfo | null; result: FailureInfo | null };
  /** What the final check ran: `python3 OUTPUT` as the user would, and how. */
  finalCheck: {
    command: string[];
    cwd: string;
    isolated: boolean;
    /** Whether autodd's `__freeze__` module was on its path (freeze markers left). */
    freezeShim: boolean;
  } | null;
  /**
   * Whether runs were isolated from the user's files; through a launcher, whether every
   * job's runs (and the final check) were isolated on the other side.
   */
  isolated: boolean;
  /** Whether `errMsg` in quoted source lines counted (asked for, or fallen back to). */
  matchQuotedSource: boolean;
  /** Runs made again because a run did not reproduce (`retries`). */
  retries: number;
  /** Whether freeze markers were removed from the result. */
  freezeStripped: boolean;
  /**
   * Milliseconds: `engineMs` is the part of `reduceMs` spent in the engine, and
   * `engineOutsideRunsMs` the part of that while no candidate was running (what the
   * engine adds to the wall time); `runMs` adds up the candidates' run times (more
   * than `reduceMs` with several jobs).
   */
  timings: {
    checkMs: number;
    reduceMs: number;
    engineMs: number;
    engineOutsideRunsMs: number;
    runMs: number;
    finishMs: number;
    totalMs: number;
  };
  /** How the candidates' runs ended; `timeout`: killed at the candidate time limit. */
  outcomes: { exited: number; signaled: number; timeout: number; stuck: number; crashed: number };
  warnings: string[];
  /**
   * The per-candidate time limit at the end, in milliseconds (see `adaptiveTimeout`,
   * `learnTimeout`).
   */
  candidateTimeoutMs: number;
  /** The per-candidate time limit the original's runs set, in milliseconds. */
  firstCandidateTimeoutMs: number;
  /**
   * Runner: the CPUs each job's worker and candidates kept to, by job; null where a
   * job used every CPU this process may use (see `cpuAffinity`).
   */
  cpus?: (number[] | null)[];
  /**
   * Runner: MiB of each job's warm worker (its preloaded modules' heap) that candidates
   * inherited in 2 MiB pages, by job; 0 where the worker held under 64 MiB or the kernel
   * cannot collapse pages, null for a job whose worker never started.
   */
  hugePagesMib?: (number | null)[];
  /** What each candidate could allocate, in MiB (see `memoryLimit`); null: no limit. */
  memoryLimitMib: number | null;
  /** Whether candidates were forked, or launched, ahead of their turn (see `prefork`). */
  prefork: boolean;
  /** The warm-up program's absolute path (see `warmUp`), or null. */
  warmUp: string | null;
  /** True when a worker could not start with the warm-up program and the reduction went on without it (a warning said so). */
  warmUpDropped: boolean;
  /** The GPUs (see `gpus`) and each job's, or null without `gpus`. */
  gpus: { devices: string[]; jobs: string[] } | null;
  /**
   * Workers started again because one died, under a candidate or between two, and launches
   * made again because one was lost (the subproc backend's, the final check's through a
   * launcher; see `launcher`).
   */
  restarts: number;
  /** Jobs (1-based) dropped because their worker could not be started again. */
  droppedJobs: number[];
  /**
   * Runs whose process compiled the candidate before its turn, while the run before went
   * on (runner, forking ahead, one job): the engine proposes the next candidate early.
   */
  compiledAhead: number;
}

/**
 * Reduces a Python program to the smallest one whose output still contains `errMsg`:
 * what the `autodd` command runs. First checks that the original reproduces
 * (rejecting with `not-reproduced` otherwise).
 */
export function reducePython(options: ReducePythonOptions): Promise<ReducePythonResult>;
