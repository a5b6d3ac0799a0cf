// The command's options, declared once: the argument parser, `--help` and the options
// table of README.md are made from this table (test/options.test.js checks README;
// `node scripts/options-table.mjs --write` rewrites it).

/**
 * @typedef {object} OptionSpec
 * @property {string} name the long name, without `--`
 * @property {string} [short] a one-letter alias
 * @property {string} [value] what the option takes, as `--help` shows it (none: a switch)
 * @property {boolean} [repeatable] may be given more than once (its values make a list)
 * @property {string} help one line, in Markdown (`code` loses its backticks in `--help`)
 * @property {string | null} api the `reducePython()` option it sets (`engine.forget`: a field
 *   of `engine`), named in index.d.ts; null for what only the command has. The long help is
 *   docs/options.md's section of the same heading (test/options.test.js checks all three).
 */

/** @type {readonly OptionSpec[]} */
export const OPTION_SPECS = [
  {
    name: 'err-msg',
    api: 'errMsg',
    value: 'MSG',
    help: "the failure signature, found case-sensitively in the program's own output; required, never empty",
  },
  {
    name: 'output',
    api: 'output',
    short: 'o',
    value: 'FILE',
    help: 'the result, replaced atomically each time a smaller candidate reproduces, so it always holds a program that reproduced',
  },
  {
    name: 'backend',
    api: 'backend',
    value: 'NAME',
    help: '`runner` (default): warm forked Python workers, one per job; `subproc`: a fresh `python3 FILE` per candidate',
  },
  {
    name: 'timeout',
    api: 'timeout',
    value: 'SEC',
    help: 'per-candidate limit (default 60); a timeout is never interesting',
  },
  {
    name: 'jobs',
    api: 'jobs',
    short: 'j',
    value: 'N',
    help: 'N candidates at once (default 1), with verdicts counted in proposal order so the search is the one `-j 1` runs',
  },
  {
    name: 'gpus',
    api: 'gpus',
    value: 'LIST',
    help: 'a GPU per job: job k sees only the k-th of LIST (`0,1,2,3`; `auto`: the ones `CUDA_VISIBLE_DEVICES` or `nvidia-smi -L` names), round-robin when jobs outnumber them',
  },
  {
    name: 'launcher',
    api: 'launcher',
    value: 'TEMPLATE',
    help: "start each job's worker through this command (`ssh {host}`, `srun --nodes=1 --ntasks=1`, `kubectl exec -i {host} --`); nothing shared but its stdin and stdout",
  },
  {
    name: 'hosts',
    api: 'hosts',
    value: 'LIST',
    help: "fill the launcher's `{host}` job by job, round-robin (`h1,h2`)",
  },
  {
    name: 'launcher-shell',
    api: 'launcherShell',
    value: 'yes|no',
    help: "whether the launcher hands the worker's command to a shell there as one line, so its words are quoted (default: yes when the template has an `ssh` or `autossh` word)",
  },
  {
    name: 'ship',
    api: 'ship',
    value: 'PATH',
    repeatable: true,
    help: "with `--launcher`: copy this file or folder of SOURCE's folder to the other side, beside the program (repeatable)",
  },
  {
    name: 'same-error',
    api: 'sameError',
    help: "a candidate must also end with the original's exception type, or its signal, or (with neither) its exit status",
  },
  {
    name: 'retries',
    api: 'retries',
    value: 'N',
    help: 'run a candidate that does not reproduce up to N times in all before it counts as not reproducing (default 1, at most 100)',
  },
  {
    name: 'match-quoted-source',
    api: 'matchQuotedSource',
    help: "count MSG in source lines that Python quotes (traceback frames, a `SyntaxError`'s line, a warning's line) too",
  },
  {
    name: 'stdin',
    api: 'stdin',
    value: 'FILE',
    help: "feed FILE to every run's standard input, the final check's too (by default runs read an empty input)",
  },
  {
    name: 'warm-up',
    api: 'warmUp',
    value: 'FILE',
    help: "runner: run FILE once in each worker before its first fork, so a library's lazy state is built once, not in every candidate",
  },
  {
    name: 'force-jobs',
    api: 'forceJobs',
    help: 'allow `-j` above 4 times the CPUs this process may use (refused otherwise; never above 1024)',
  },
  {
    name: 'no-sandbox',
    api: 'sandbox',
    help: 'run candidates unisolated (by default each sees the file system read-only, with copy-on-write overlays)',
  },
  {
    name: 'python',
    api: 'python',
    value: 'PATH',
    help: 'the interpreter (default `python3`, resolved once to its real path)',
  },
  { name: 'no-preload', api: 'preload', help: "runner: do not import the program's modules in advance" },
  {
    name: 'keep-freeze',
    api: 'keepFreeze',
    help: 'keep freeze markers in the result (by default they go when the result reproduces without them)',
  },
  {
    name: 'report',
    api: null,
    value: 'FILE',
    help: 'write JSON with statistics, timings, how the runs ended, the limits used, both failures and every accepted step',
  },
  {
    name: 'trace',
    api: null,
    value: 'FILE',
    help: 'write one JSON line per candidate run (phase, rewrites, sites, size, verdict, outcome, start, milliseconds, whether it counted)',
  },
  {
    name: 'no-adaptive-timeout',
    api: 'adaptiveTimeout',
    help: "give every candidate the full `--timeout` instead of 10× the original's faster run plus 20 ms",
  },
  {
    name: 'no-learned-timeout',
    api: 'learnTimeout',
    help: "keep the original's cap instead of following the reproducing candidates' run times once 8 reproduced",
  },
  {
    name: 'memory-limit',
    api: 'memoryLimit',
    value: 'MIB',
    help: 'runner, Linux: what each candidate may allocate beyond its worker (default: half the RAM shared by the jobs)',
  },
  { name: 'no-memory-limit', api: 'memoryLimit', help: 'no memory limit for candidates' },
  {
    name: 'no-stuck-detection',
    api: 'stuckDetection',
    help: 'runner: let a candidate whose threads all wait with no timeout run to its time limit instead of killing it',
  },
  {
    name: 'no-lookahead',
    api: 'lookahead',
    help: 'propose a candidate only when a run slot is free (by default the next one is proposed while others run)',
  },
  {
    name: 'no-speculation',
    api: 'speculate',
    help: "`-j N`: leave free slots idle while a success or a phase's end waits on earlier candidates",
  },
  {
    name: 'no-prefork',
    api: 'prefork',
    help: "fork and compile each candidate's process (runner), or start each launch through `--launcher`, only when it is due, not while the run before goes on",
  },
  {
    name: 'no-huge-pages',
    api: 'hugePages',
    help: "runner: keep a large warm worker's heap in 4 KiB pages instead of 2 MiB ones (comparisons)",
  },
  {
    name: 'no-cpu-affinity',
    api: 'cpuAffinity',
    help: 'runner, `-j N`: let every job use every CPU instead of keeping to its own share',
  },
  {
    name: 'no-hang-memory',
    api: 'engine.forgetHangs',
    help: 'let later rounds try a rewrite whose candidate alone hung in groups again, as plain PDD does (comparisons)',
  },
  {
    name: 'reference-rewrites',
    api: 'engine.referenceOnly',
    help: 'only the rewrites of `python -m tilelang.autodd` (comparisons)',
  },
  {
    name: 'no-memory',
    api: 'engine.forget',
    help: "restart the search's probabilities after every accepted candidate, as plain PDD does (comparisons)",
  },
  {
    name: 'canonicalize-every-round',
    api: 'engine.canonicalizeEveryRound',
    help: 'add `*args`/`**kwargs` to every def in every round, as the reference does (comparisons)',
  },
  {
    name: 'fresh-phases',
    api: 'engine.freshPhases',
    help: "start each phase's search afresh instead of from what the round's earlier phases learned (comparisons)",
  },
  {
    name: 'uniform-priors',
    api: 'engine.uniformPriors',
    help: 'start every site at probability 0.93, as plain PDD does (comparisons)',
  },
  {
    name: 'fixed-groups',
    api: 'engine.fixedGroups',
    help: "keep PDD's group size when candidates are accepted instead of growing it, as plain PDD does (comparisons)",
  },
  { name: 'quiet', api: null, help: 'only errors and warnings' },
  { name: 'help', api: null, short: 'h', help: 'show the help' },
  { name: 'version', api: null, short: 'V', help: 'show the version' },
];

/**
 * The options in the form `util.parseArgs` takes.
 * @returns {Record<string, { type: 'string' | 'boolean', short?: string, multiple?: boolean }>}
 */
export function parseArgsOptions() {
  return Object.fromEntries(
    OPTION_SPECS.map((o) => [
      o.name,
      {
        type: o.value ? 'string' : 'boolean',
        ...(o.short ? { short: o.short } : {}),
        ...(o.repeatable ? { multiple: true } : {}),
      },
    ]),
  );
}

/** @param {OptionSpec} o `-o, --output FILE` */
function spelling(o) {
  return `${o.short ? `-${o.short}, ` : ''}--${o.name}${o.value ? ` ${o.value}` : ''}`;
}

/**
 * The options part of `--help`: each option and its line, wrapped at 80 columns.
 * @returns {string}
 */
export function helpText() {
  const column = 24;
  return OPTION_SPECS.map((o) => {
    const head = `  ${spelling(o)}`;
    const words = o.help.replaceAll('`', '').split(' ');
    /** @type {string[]} */
    const lines = [];
    let line = '';
    for (const word of words) {
      if (line && column + line.length + 1 + word.length > 80) {
        lines.push(line);
        line = word;
      } else {
        line = line ? `${line} ${word}` : word;
      }
    }
    lines.push(line);
    const first =
      head.length < column - 1 ? head.padEnd(column) + lines[0] : `${head}\n${' '.repeat(column)}${lines[0]}`;
    return [first, ...lines.slice(1).map((l) => ' '.repeat(column) + l)].join('\n');
  }).join('\n');
}

/**
 * README's options table (between `<!-- options:start -->` and `<!-- options:end -->`).
 * @returns {string}
 */
export function markdownTable() {
  // A `|` splits a table's cell, in code too, unless escaped.
  const rows = OPTION_SPECS.map((o) => `| \`${spelling(o).replaceAll('|', '\\|')}\` | ${o.help} |`);
  return ['| option | meaning |', '| --- | --- |', ...rows].join('\n');
}
