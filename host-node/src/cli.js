// The `autodd` command: parses arguments, calls reducePython(), reports progress
// and the summary, and turns user mistakes into one `autodd: error: …` line.
// Exit status: 0 done, 1 the program does not reproduce, 2 bad usage or input,
// 130 interrupted.

import fs from 'node:fs';
import { parseArgs } from 'node:util';
import { jobDevices, parseGpus } from './devices.js';
import { AutoddError } from './errors.js';
import path from 'node:path';
import { checkOutput, sameFile, writeAtomic } from './files.js';
import { clock, countLines, percent, ProgressReporter, size } from './progress.js';
import { helpText, parseArgsOptions } from './options.js';
import { shellLine } from './launcher.js';
import { realpath } from './python.js';
import { reducePython } from './reduce-python.js';

const HELP = `Usage: autodd SOURCE --err-msg MSG -o OUTPUT [options]

Reduces the Python program SOURCE to the smallest program whose output (stdout or
stderr) still contains MSG, and writes it to OUTPUT. MSG must be in what the program
writes itself: source lines that Python quotes (in a traceback, a SyntaxError or a
warning) do not count. OUTPUT always holds the smallest program found so far that
reproduced, even if autodd is interrupted.

Options:
${helpText()}

Code marked \`# autodd: freeze\`, between \`# autodd: freeze-start\` and
\`# autodd: end-freeze\`, under \`with __freeze__:\` or inside \`__freeze__(...)\` is never
changed. Import the marker with \`from autodd import __freeze__\`.
`;

const OPTIONS = parseArgsOptions();

/**
 * @typedef {object} CliArgs
 * @property {string} source
 * @property {string} errMsg
 * @property {string} output
 * @property {'runner' | 'subproc'} backend
 * @property {number} timeout
 * @property {number} jobs
 * @property {string} python
 * @property {boolean} sameError
 * @property {number} retries
 * @property {string} [gpus]
 * @property {string} [launcher]
 * @property {string[]} [ship]
 * @property {string} [hosts]
 * @property {boolean} [launcherShell]
 * @property {boolean} matchQuotedSource
 * @property {boolean} sandbox
 * @property {boolean} forceJobs
 * @property {string} [stdin]
 * @property {boolean} keepFreeze
 * @property {boolean} preload
 * @property {string} [report]
 * @property {string} [trace]
 * @property {boolean} adaptiveTimeout
 * @property {boolean} learnTimeout
 * @property {number | false | undefined} memoryLimit MiB; undefined: the default
 * @property {boolean} lookahead
 * @property {boolean} speculate
 * @property {boolean} stuckDetection
 * @property {boolean} cpuAffinity
 * @property {boolean} hugePages
 * @property {string} [warmUp]
 * @property {boolean | undefined} prefork false with --no-prefork; undefined: the default
 * @property {{ referenceOnly: boolean, forget: boolean, canonicalizeEveryRound: boolean, freshPhases: boolean, uniformPriors: boolean, fixedGroups: boolean, forgetHangs: boolean }} engine
 * @property {boolean} quiet
 */

/**
 * @param {string[]} argv
 * @returns {CliArgs | 'help' | 'version'}
 */
export function parseCli(argv) {
  /** @type {{ values: Record<string, string | boolean | (string | boolean)[] | undefined>, positionals: string[] }} */
  let parsed;
  try {
    parsed = parseArgs({
      args: negativeValues(argv),
      options: OPTIONS,
      allowPositionals: true,
      strict: true,
    });
  } catch (err) {
    // One line: parseArgs adds a hint on a line of its own.
    const line = /** @type {Error} */ (err).message
      .split('\n')[0]
      // "Unknown option '--x'. To specify a positional argument starting with a '-', …"
      .replace(/^Unknown option '([^']*)'\..*/, "unknown option '$1'");
    const ambiguous = /^Option '(?:-\w, )?(--?[\w-]+)[^']*' argument is ambiguous/.exec(line);
    throw new AutoddError(
      'usage',
      ambiguous
        ? `${ambiguous[1]} needs a value before the next option (one that starts with "-" as ${VALUED.get(ambiguous[1]) ?? ambiguous[1]}=VALUE)`
        : line,
    );
  }
  const { values, positionals } = parsed;
  /** @param {string} name an option that takes a value */
  const text = (name) => {
    const value = values[name];
    return typeof value === 'string' ? value : undefined;
  };
  /** @param {string} name a repeatable option */
  const list = (name) => {
    const value = values[name];
    return Array.isArray(value) ? value.map(String) : undefined;
  };
  /** @param {string} name a switch */
  const flag = (name) => values[name] === true;
  if (flag('help')) return 'help';
  if (flag('version')) return 'version';
  if (positionals.length === 0) throw new AutoddError('usage', 'missing SOURCE (the program to reduce)');
  if (positionals.length > 1) {
    throw new AutoddError(
      'usage',
      `expected one SOURCE, got ${positionals.length}: ${positionals.join(' ')}`,
    );
  }
  const errMsg = text('err-msg');
  if (errMsg === undefined) throw new AutoddError('usage', 'missing --err-msg MSG');
  if (errMsg.trim() === '') throw new AutoddError('usage', '--err-msg must not be empty or only spaces');
  const output = text('output');
  if (output === undefined || output === '') throw new AutoddError('usage', 'missing -o OUTPUT');
  const backend = text('backend') ?? 'runner';
  if (backend !== 'runner' && backend !== 'subproc') {
    throw new AutoddError('usage', `--backend must be runner or subproc, not '${backend}'`);
  }
  return {
    source: positionals[0],
    errMsg,
    output,
    backend,
    timeout: number('--timeout', text('timeout'), 60, false),
    jobs: number('-j', text('jobs'), 1, true),
    python: text('python') ?? 'python3',
    sameError: flag('same-error'),
    retries: number('--retries', text('retries'), 1, true),
    gpus: text('gpus'),
    launcher: text('launcher'),
    hosts: text('hosts'),
    launcherShell: yesNo('--launcher-shell', text('launcher-shell')),
    ship: list('ship'),
    matchQuotedSource: flag('match-quoted-source'),
    sandbox: !flag('no-sandbox'),
    forceJobs: flag('force-jobs'),
    stdin: text('stdin'),
    warmUp: text('warm-up'),
    keepFreeze: flag('keep-freeze'),
    preload: !flag('no-preload'),
    report: text('report'),
    trace: text('trace'),
    adaptiveTimeout: !flag('no-adaptive-timeout'),
    learnTimeout: !flag('no-learned-timeout'),
    memoryLimit: memoryLimit(text('memory-limit'), flag('no-memory-limit')),
    lookahead: !flag('no-lookahead'),
    speculate: !flag('no-speculation'),
    stuckDetection: !flag('no-stuck-detection'),
    cpuAffinity: !flag('no-cpu-affinity'),
    hugePages: !flag('no-huge-pages'),
    prefork: flag('no-prefork') ? false : undefined,
    engine: {
      referenceOnly: flag('reference-rewrites'),
      forget: flag('no-memory'),
      canonicalizeEveryRound: flag('canonicalize-every-round'),
      freshPhases: flag('fresh-phases'),
      uniformPriors: flag('uniform-priors'),
      fixedGroups: flag('fixed-groups'),
      forgetHangs: flag('no-hang-memory'),
    },
    quiet: flag('quiet'),
  };
}

/** The options that take a number. */
/** `--name` and `-x` of every option that takes a value, each to its long spelling */
const VALUED = new Map(
  Object.entries(OPTIONS).flatMap(([name, o]) => {
    if (o.type !== 'string') return [];
    /** @type {[string, string][]} */
    const spellings = [[`--${name}`, `--${name}`]];
    if (o.short) spellings.push([`-${o.short}`, `--${name}`]);
    return spellings;
  }),
);

/**
 * `--err-msg "-> bad"` and `-j -1` as `--err-msg=-> bad` and `--jobs=-1`: parseArgs
 * takes a value that starts with a dash for an option of its own ("ambiguous"), and
 * the user should get the value's own check. A known option stays an option.
 * @param {string[]} argv
 */
function negativeValues(argv) {
  /** @type {string[]} */
  const out = [];
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--') {
      // What follows is positional, as it is.
      out.push(...argv.slice(i));
      break;
    }
    const name = VALUED.get(argv[i]);
    const next = argv[i + 1];
    if (name && next !== undefined && next.startsWith('-') && next !== '--' && !isOption(next)) {
      out.push(`${name}=${next}`);
      i += 1;
    } else {
      out.push(argv[i]);
    }
  }
  return out;
}

/** @param {string} arg `--name`, `--name=…`, `-x` or `-x…` of a known option */
function isOption(arg) {
  const long = /^--([^=]+)/.exec(arg);
  if (long) return Object.hasOwn(OPTIONS, long[1]);
  const short = arg[1];
  return short !== undefined && Object.values(OPTIONS).some((o) => o.short === short);
}

/**
 * @template {number | undefined} F
 * @param {string} name
 * @param {string | undefined} text
 * @param {F} fallback
 * @param {boolean} integer
 * @param {string} [unit] of a number that need not be an integer
 * @returns {number | F}
 */
function number(name, text, fallback, integer, unit = 'seconds') {
  if (text === undefined) return fallback;
  const value = Number(text);
  // Digits only: Number() also reads ' 2', '0x2' and '1e9'.
  const spelled = integer ? /^[0-9]+$/ : /^([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?$/;
  const ok = spelled.test(text) && Number.isFinite(value) && value > 0;
  if (!ok) {
    const what = integer ? 'a positive integer' : `a positive number of ${unit}`;
    throw new AutoddError('usage', `${name} must be ${what}, not '${text}'`);
  }
  return value;
}

/**
 * @param {string} name
 * @param {string | undefined} text `yes` or `no`
 * @returns {boolean | undefined}
 */
function yesNo(name, text) {
  if (text === undefined) return undefined;
  if (text !== 'yes' && text !== 'no')
    throw new AutoddError('usage', `${name} must be yes or no, not '${text}'`);
  return text === 'yes';
}

/**
 * @param {string | undefined} text --memory-limit
 * @param {boolean} off --no-memory-limit
 * @returns {number | false | undefined}
 */
function memoryLimit(text, off) {
  if (text !== undefined && off) {
    throw new AutoddError('usage', 'give --memory-limit or --no-memory-limit, not both');
  }
  return off ? false : number('--memory-limit', text, undefined, false, 'MiB');
}

function version() {
  const pkg = JSON.parse(fs.readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
  return String(pkg.version);
}

/**
 * Runs the command; resolves to the exit status.
 * @param {string[]} argv
 * @returns {Promise<number>}
 */
export async function main(argv) {
  const stderr = process.stderr;
  /** @type {CliArgs} */
  let args;
  try {
    const parsed = parseCli(argv);
    if (parsed === 'help') {
      process.stdout.write(HELP);
      return 0;
    }
    if (parsed === 'version') {
      process.stdout.write(`autodd ${version()}\n`);
      return 0;
    }
    args = parsed;
  } catch (err) {
    return fail(err);
  }

  const reporter = new ProgressReporter({ stream: stderr, quiet: args.quiet });
  const controller = new AbortController();
  /** @type {number | undefined} the --trace file */
  let trace;
  let signals = 0;
  const onSignal = (/** @type {NodeJS.Signals} */ sig) => {
    if (sig === 'SIGHUP') endByHangupAtExit();
    signals += 1;
    if (signals === 1) {
      reporter.note('interrupted: stopping the runs in progress');
      controller.abort();
    } else {
      // A second interrupt: stop waiting (the exit handler kills every process group
      // still running). OUTPUT is only ever replaced whole, so it is still valid.
      process.exit(130);
    }
  };
  // SIGHUP: the terminal went away (an ssh session to a GPU node dropped). What
  // autodd would print there fails; the reduction stops as for Ctrl-C all the same,
  // OUTPUT and --report are written, and autodd then ends by SIGHUP.
  const STOPS = /** @type {const} */ (['SIGINT', 'SIGTERM', 'SIGHUP']);
  for (const sig of STOPS) process.on(sig, onSignal);
  stderr.on('error', () => {}); // a terminal that hung up: there is no one to tell

  try {
    for (const [flag, file] of [
      ['--report', args.report],
      ['--trace', args.trace],
    ]) {
      if (file && sameFile(path.resolve(file), path.resolve(args.output))) {
        throw new AutoddError('usage', `${flag} ${file} is OUTPUT itself; give it a file of its own`);
      }
    }
    if (args.report && args.trace && sameFile(path.resolve(args.report), path.resolve(args.trace))) {
      throw new AutoddError('usage', '--report and --trace name the same file');
    }
    // Files autodd reads: a report or a trace written over one would lose it.
    const inputs = { '--stdin': args.stdin, '--warm-up': args.warmUp };
    if (args.report) checkOutput(args.report, args.source, '--report', inputs);
    if (args.trace) {
      checkOutput(args.trace, args.source, '--trace', inputs);
      trace = fs.openSync(args.trace, 'w');
    }
    const traceFd = trace;
    // Resolved here (`auto` reads the machine once) so the progress can name each job's GPU.
    const gpus =
      args.gpus === undefined ? undefined : parseGpus(args.gpus, process.env, args.launcher !== undefined);
    if (gpus) reporter.useDevices(jobDevices(gpus, args.jobs));
    const result = await reducePython({
      file: args.source,
      errMsg: args.errMsg,
      output: args.output,
      backend: args.backend,
      timeout: args.timeout,
      jobs: args.jobs,
      python: args.python,
      sameError: args.sameError,
      retries: args.retries,
      gpus,
      launcher: args.launcher,
      hosts: args.hosts,
      launcherShell: args.launcherShell,
      ship: args.ship,
      matchQuotedSource: args.matchQuotedSource,
      sandbox: args.sandbox,
      forceJobs: args.forceJobs,
      stdin: args.stdin,
      warmUp: args.warmUp,
      preload: args.preload,
      keepFreeze: args.keepFreeze,
      adaptiveTimeout: args.adaptiveTimeout,
      learnTimeout: args.learnTimeout,
      memoryLimit: args.memoryLimit,
      lookahead: args.lookahead,
      speculate: args.speculate,
      stuckDetection: args.stuckDetection,
      cpuAffinity: args.cpuAffinity,
      hugePages: args.hugePages,
      prefork: args.prefork,
      engine: args.engine,
      signal: controller.signal,
      onPhase: (phase) => reporter.setPhase(phase),
      onProgress: (progress) => reporter.update(progress),
      onWarning: (message) => reporter.note(`warning: ${message}`),
      onRun: traceFd === undefined ? undefined : (run) => fs.writeSync(traceFd, `${JSON.stringify(run)}\n`),
    });
    reporter.finish();
    if (!args.quiet) summarize(result, args);
    else if (notReproduced(result)) reporter.note(`warning: ${notReproducedLine(result, args)}`);
    if (args.report) await writeReport(args, result);
    // A result that does not reproduce on its own is not the reproducer asked for:
    // scripts see it in the exit status (OUTPUT is written all the same).
    if (result.interrupted) return 130;
    return notReproduced(result) ? 1 : 0;
  } catch (err) {
    reporter.finish();
    if (err instanceof AutoddError && err.code === 'syntax-error') {
      return fail(new AutoddError(err.code, `${args.source}: ${err.message}`));
    }
    return fail(err);
  } finally {
    // A signal that arrives while the process winds down (workers being stopped) ends it
    // as an interrupt, not by the signal's default action.
    for (const sig of STOPS) {
      process.off(sig, onSignal);
      process.on(sig, sig === 'SIGHUP' ? exitHungUp : exitInterrupted);
    }
    if (trace !== undefined) fs.closeSync(trace);
  }
}

function exitInterrupted() {
  process.exit(130);
}

function exitHungUp() {
  endByHangupAtExit();
  process.exit(130);
}

let hungUp = false;

/**
 * After a SIGHUP: the last of the exit handlers ends the process by SIGHUP, as a
 * process without a handler would have ended (status 129 in a shell). Node's own exit
 * would also restore the terminal's modes, and abort when that terminal is gone.
 */
function endByHangupAtExit() {
  if (hungUp) return;
  hungUp = true;
  process.on('exit', () => {
    process.removeAllListeners('SIGHUP');
    process.kill(process.pid, 'SIGHUP');
  });
}

/**
 * Prints a user error on one line (plus its details) and gives its exit status.
 * Anything that is not an AutoddError is a bug in autodd: it keeps its stack trace.
 * @param {unknown} err
 */
function fail(err) {
  if (!(err instanceof AutoddError)) throw err;
  const hint = err.code === 'usage' ? ' (see autodd --help)' : '';
  process.stderr.write(`autodd: error: ${err.message}${hint}\n`);
  if (err.details) process.stderr.write(`${err.details}\n`);
  return err.code === 'not-reproduced' ? 1 : 2;
}

/**
 * @param {import('./reduce-python.js').PythonReduceResult} result
 * @param {CliArgs} args
 */
function summarize(result, args) {
  const { stats, timings } = result;
  const bytes = Buffer.byteLength(result.source);
  const lines = countLines(result.source);
  const out = (/** @type {string} */ line) => process.stderr.write(`autodd: ${line}\n`);
  if (!result.checked) {
    out(`interrupted before reducing; ${args.output} was not written`);
    return;
  }
  out(
    `${size(stats.originalBytes, stats.originalLines)} → ${size(bytes, lines)}` +
      ` (${percent(bytes, stats.originalBytes)} of the bytes) in ${(timings.totalMs / 1000).toFixed(1)} s` +
      (result.interrupted ? ' (interrupted)' : ''),
  );
  out(
    `${result.tried} candidates run, ${stats.cacheHits} cache hits, ${stats.accepted} accepted` +
      ` (reduce ${clock(timings.reduceMs)})`,
  );
  const { original, result: final } = result.failure;
  if (original) out(`original: ${describeFailure(original)}`);
  if (final) out(`result:   ${describeFailure(final)}`);
  if (result.retries > 0) out(`${result.retries} runs repeated (--retries ${args.retries})`);
  if (result.interrupted) {
    out(`${args.output} holds the smallest program that reproduced before the interrupt`);
    return;
  }
  const check = result.finalCheck;
  if (check) {
    const how = [
      check.isolated ? 'isolated' : 'unisolated',
      check.freezeShim ? 'the result keeps freeze markers, which import autodd: run it as shown' : '',
    ].filter(Boolean);
    out(`final check: ${shellLine(check.command)} in ${check.cwd} (${how.join(', ')})`);
  }
  if (result.reproduced && args.launcher && args.ship?.length) {
    // The check ran the result on the other side, beside the files shipped there.
    const { outputDir, programDir } = folders(args);
    if (outputDir !== programDir) {
      out(
        `warning: the final check ran ${args.output} beside the shipped files; here it is in ${outputDir}, ` +
          `not beside them in ${programDir}`,
      );
    }
  }
  if (result.reproduced) {
    out(
      `wrote ${args.output}; it reproduces when run on its own` +
        (final ? ` (${final.reproduced} of ${final.runs} runs)` : '') +
        (result.freezeStripped ? ' (freeze markers removed)' : ''),
    );
  } else {
    out(notReproducedLine(result, args));
  }
}

/**
 * Whether the final check ran the result and no run of it reproduced.
 * @param {import('./reduce-python.js').PythonReduceResult} result
 */
function notReproduced(result) {
  return !result.interrupted && result.reproduced === false;
}

/**
 * @param {import('./reduce-python.js').PythonReduceResult} result
 * @param {CliArgs} args
 */
function notReproducedLine(result, args) {
  const { original, result: final } = result.failure;
  const head =
    `wrote ${args.output}, but it did NOT reproduce in ${final?.runs ?? 1} runs on its own` +
    (args.warmUp && !result.warmUpDropped ? ` (without ${args.warmUp}, which the workers ran first)` : '');
  if (!final || !original || final.kind === original.kind) {
    // Failing alike but without MSG: MSG's file name is a likelier cause than chance.
    const named = namedProgram(args);
    // Every run had PYTHONHASHSEED=0 unless it was set; the final check is the user's.
    const seeded =
      process.env.PYTHONHASHSEED === undefined
        ? ', or it depends on the hash seed (the reduction ran with PYTHONHASHSEED=0, the final check with a random one)'
        : '';
    return `${head}: ${named || `the failure may be flaky (see --retries)${seeded}`}`;
  }
  // Run where OUTPUT is, the result may miss the files beside the program.
  const { outputDir, programDir } = folders(args);
  return (
    `${head}: it ends with ${final.kind}` +
    (outputDir === programDir ? '' : ` (it runs in ${outputDir}, the program's files are in ${programDir})`)
  );
}

/**
 * The folders OUTPUT and the program are in, links resolved.
 * @param {CliArgs} args
 */
function folders(args) {
  return {
    outputDir: path.dirname(realpath(path.resolve(args.output))),
    programDir: path.dirname(realpath(path.resolve(args.source))),
  };
}

/**
 * Why a result that runs under another name may miss MSG: MSG names the program's file
 * (built from `__file__`, as in a traceback's own line). Empty when it does not.
 * @param {CliArgs} args
 */
function namedProgram(args) {
  const source = path.basename(args.source);
  const output = path.basename(args.output);
  const stem = source.replace(/\.py$/, '');
  const name = args.errMsg.includes(source)
    ? source
    : stem.length >= 3 && args.errMsg.includes(stem)
      ? stem
      : '';
  if (!name || output.includes(name)) return '';
  return `MSG holds ${JSON.stringify(name)}, the program's file name, and the result runs as ${output}: give OUTPUT a name that holds it, or leave it out of --err-msg`;
}

/**
 * `AssertionError, MSG in "AssertionError: K shape check failed: 1 != 2" (2 of 2 runs)`
 * @param {import('./reduce-python.js').FailureInfo} info
 */
function describeFailure(info) {
  const where = !info.ownOutput
    ? ', MSG only in a source line that Python quotes'
    : info.msgLine !== null
      ? `, MSG in ${JSON.stringify(info.msgLine)}`
      : '';
  return `${info.kind}${where} (${info.reproduced} of ${info.runs} runs reproduced)`;
}

/**
 * @param {CliArgs} args
 * @param {import('./reduce-python.js').PythonReduceResult} result
 */
async function writeReport(args, result) {
  const report = {
    autodd: version(),
    source: args.source,
    output: args.output,
    errMsg: args.errMsg,
    backend: args.backend,
    jobs: args.jobs,
    timeout: args.timeout,
    candidateTimeout: result.candidateTimeoutMs / 1000,
    firstCandidateTimeout: result.firstCandidateTimeoutMs / 1000,
    memoryLimitMib: result.memoryLimitMib,
    prefork: result.prefork,
    warmUp: result.warmUp,
    warmUpDropped: result.warmUpDropped,
    gpus: result.gpus,
    ...(args.launcher ? { launcher: args.launcher, hosts: args.hosts ?? null, ship: args.ship ?? [] } : {}),
    restarts: result.restarts,
    droppedJobs: result.droppedJobs,
    compiledAhead: result.compiledAhead,
    ...(result.cpus ? { cpus: result.cpus } : {}),
    ...(result.hugePagesMib ? { hugePagesMib: result.hugePagesMib } : {}),
    engine: args.engine,
    interrupted: result.interrupted,
    reproduced: result.reproduced,
    failure: result.failure,
    finalCheck: result.finalCheck,
    isolated: result.isolated,
    sameError: args.sameError,
    matchQuotedSource: result.matchQuotedSource,
    retries: { allowed: args.retries, run: result.retries },
    freezeStripped: result.freezeStripped,
    final: { bytes: Buffer.byteLength(result.source), lines: countLines(result.source) },
    tried: result.tried,
    stats: result.stats,
    outcomes: result.outcomes,
    timings: result.timings,
    steps: result.steps,
    warnings: result.warnings,
  };
  await writeAtomic(args.report ?? '', `${JSON.stringify(report, null, 2)}\n`);
}
