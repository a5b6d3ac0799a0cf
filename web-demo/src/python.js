// Python in the browser: a Web Worker that runs candidates under Pyodide (CPython
// compiled to WebAssembly), started by the reduction worker (pyoracle.js). Pyodide's
// files and the output scan come from the page's own origin: ../pyodide/ (the npm
// package's runtime), ../autodd_runner/scan.py (the runner's own rules for reading
// output, so the page judges a run as the CLI does) and ../freeze/autodd/ (the
// `autodd` module for `from autodd import __freeze__`, as the CLI provides it).
//
// Messages in:  init { interrupt?: SharedArrayBuffer } · run { id, source, needle }
// Messages out: ready { pyodide, python } · failed { message }
//               · done { id, found, foundAnywhere, exception, exitCode, interrupted, stdoutTail, stderrTail, ms }

/** The driver, run once: each candidate in a fresh `__main__`, like the runner's fork. */
const DRIVER = `
import builtins, io, linecache, os, sys, traceback
import autodd_scan

_BUILTINS = dict(builtins.__dict__)
_MODULES = set(sys.modules)
_PATH = "/home/pyodide/prog.py"


def _restore():
    # What a candidate changed in the interpreter does not reach the next one.
    for name in [n for n in builtins.__dict__ if n not in _BUILTINS]:
        del builtins.__dict__[name]
    builtins.__dict__.update(_BUILTINS)
    for name in [n for n in sys.modules if n not in _MODULES]:
        del sys.modules[name]
    linecache.clearcache()


def autodd_run(source, needle):
    with open(_PATH, "w", encoding="utf-8") as f:
        f.write(source)
    out, err = io.StringIO(), io.StringIO()
    saved = (sys.stdout, sys.stderr, sys.argv, os.getcwd())
    sys.stdout, sys.stderr, sys.argv = out, err, [_PATH]
    status, interrupted = 0, False
    try:
        code = compile(source, _PATH, "exec")
        exec(code, {"__name__": "__main__", "__file__": _PATH, "__builtins__": builtins})
    except SystemExit as e:
        if e.code is None or isinstance(e.code, int):
            status = e.code or 0
        else:
            print(e.code, file=err)
            status = 1
    except BaseException as e:
        interrupted = isinstance(e, KeyboardInterrupt)
        # Without this driver's own frame, as python3 prints it.
        tb = e.__traceback__.tb_next if e.__traceback__ and not isinstance(e, SyntaxError) else None
        traceback.print_exception(type(e), e, tb, file=err)
        status = 1
    finally:
        sys.stdout, sys.stderr, sys.argv = saved[0], saved[1], saved[2]
        os.chdir(saved[3])
        _restore()
    scans = []
    for text in (out.getvalue(), err.getvalue()):
        scan = autodd_scan.OutputScan(needle.encode())
        scan.feed(text.encode("utf-8", "surrogateescape"))
        scan.end()
        scans.append(scan)
    o, e = scans
    return {
        "found": o.own.found or e.own.found,
        "foundAnywhere": o.anywhere.found or e.anywhere.found,
        "exception": e.exception or o.exception,
        "exitCode": status,
        "interrupted": interrupted,
        "stdoutTail": o.text(),
        "stderrTail": e.text(),
    }
`;

/** @type {any} */
let pyodide = null;
/** @type {any} */
let run = null;

self.onmessage = async (event) => {
  const msg = event.data;
  if (msg.type === 'init') {
    try {
      await init(msg.interrupt);
    } catch (e) {
      self.postMessage({ type: 'failed', message: e instanceof Error ? e.message : String(e) });
    }
  } else if (msg.type === 'run') {
    const started = performance.now();
    const answer = run(msg.source, msg.needle);
    const result = answer.toJs({ dict_converter: Object.fromEntries });
    answer.destroy(); // a Python dict each run: not left to the garbage collector
    self.postMessage({ type: 'done', id: msg.id, ...result, ms: performance.now() - started });
  }
};

/** @param {SharedArrayBuffer | undefined} interrupt */
async function init(interrupt) {
  const base = new URL('../pyodide/', import.meta.url).href;
  // Not bundled: Pyodide loads its other files from beside this module.
  const { loadPyodide } = await import(/* @vite-ignore */ `${base}pyodide.mjs`);
  pyodide = await loadPyodide({ indexURL: base, stdout: () => {}, stderr: () => {} });
  if (interrupt) pyodide.setInterruptBuffer(new Int32Array(interrupt));
  // The runner's output scan, and the stand-in for `autodd` (freeze markers) that the
  // CLI puts on candidates' PYTHONPATH.
  pyodide.FS.mkdirTree('/home/pyodide/autodd');
  for (const [from, to] of [
    ['../autodd_runner/scan.py', '/home/pyodide/autodd_scan.py'],
    ['../freeze/autodd/__init__.py', '/home/pyodide/autodd/__init__.py'],
  ]) {
    const response = await fetch(new URL(from, import.meta.url));
    if (!response.ok) throw new Error(`cannot load ${from}: HTTP ${response.status}`);
    pyodide.FS.writeFile(to, await response.text());
  }
  pyodide.runPython('import sys; sys.path.insert(0, "/home/pyodide")');
  pyodide.runPython(DRIVER);
  run = pyodide.globals.get('autodd_run');
  self.postMessage({
    type: 'ready',
    pyodide: pyodide.version,
    python: pyodide.runPython('import sys; sys.version.split()[0]'),
  });
}
