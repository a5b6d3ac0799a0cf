"""Sizes of a program (bytes, Python tokens, AST nodes) and whether it reproduces
when run on its own."""

import ast
import io
import subprocess
import tokenize

# Layout and comments are not code: counted tokens are names, operators, literals...
_SKIPPED = {
    tokenize.NL,
    tokenize.NEWLINE,
    tokenize.INDENT,
    tokenize.DEDENT,
    tokenize.COMMENT,
    tokenize.ENCODING,
    tokenize.ENDMARKER,
}


def sizes(source: str) -> dict:
    """`bytes`, `lines`, `tokens` and `nodes` (None when the text does not parse)."""
    result = {"bytes": len(source.encode()), "lines": len(source.splitlines()), "tokens": None, "nodes": None}
    try:
        tokens = tokenize.generate_tokens(io.StringIO(source).readline)
        result["tokens"] = sum(1 for t in tokens if t.type not in _SKIPPED)
        result["nodes"] = sum(1 for _ in ast.walk(ast.parse(source)))
    except (SyntaxError, tokenize.TokenError, ValueError):
        pass
    return result


def reproduces(path, msg: str, python, env: dict, cwd, timeout: float = 20.0) -> bool:
    """Runs `python path` in a fresh process: is `msg` in its stdout or stderr?"""
    try:
        run = subprocess.run(
            [str(python), str(path)],
            capture_output=True,
            env=env,
            cwd=cwd,
            timeout=timeout,
            stdin=subprocess.DEVNULL,
        )
    except subprocess.TimeoutExpired:
        return False
    out = run.stdout.decode(errors="replace") + run.stderr.decode(errors="replace")
    return msg in out


# How a program marks code autodd must keep; peers do not know these markers.
_FREEZE_LINE = "# autodd: freeze"
_FREEZE_START = "# autodd: freeze-start"
_FREEZE_END = "# autodd: end-freeze"


def _frozen_fragments(original: str) -> list:
    """The frozen code of `original`, as the texts `ast.unparse` gives its pieces: the
    statements in `with __freeze__:` blocks, inside `freeze-start`/`end-freeze`
    comments or on a `# autodd: freeze` line, and the arguments of `__freeze__(...)`."""
    tree = ast.parse(original)
    lines = original.splitlines()
    marked = set()
    inside = False
    for number, line in enumerate(lines, 1):
        stripped = line.strip()
        if stripped == _FREEZE_START:
            inside = True
        elif stripped == _FREEZE_END:
            inside = False
        elif inside or line.rstrip().endswith(_FREEZE_LINE):
            marked.add(number)
    fragments = []
    for node in ast.walk(tree):
        if isinstance(node, ast.With) and any(
            isinstance(item.context_expr, ast.Name) and item.context_expr.id == "__freeze__" for item in node.items
        ):
            fragments.extend(ast.unparse(stmt) for stmt in node.body)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "__freeze__":
            fragments.extend(ast.unparse(arg) for arg in node.args)
        elif isinstance(node, ast.stmt) and node.lineno in marked and not isinstance(node, ast.With):
            fragments.append(ast.unparse(node))
    return fragments


def frozen(original: str, output: str) -> dict:
    """Whether `output` kept the frozen code of `original` (`dropped`: some of it is
    gone), and its tokens with the frozen code it kept, and the freeze markers, counted
    out (`tokens_unfrozen`), so a tool that must keep code is not compared by it."""
    fragments = _frozen_fragments(original)
    size = sizes(output)["tokens"]
    if size is None:
        return {"dropped": bool(fragments), "tokens_unfrozen": None}
    try:
        text = ast.unparse(ast.parse(output))
    except SyntaxError:
        return {"dropped": bool(fragments), "tokens_unfrozen": None}
    kept = [f for f in fragments if f in text]
    frozen_tokens = sum(sizes(f)["tokens"] or 0 for f in kept)
    # `with __freeze__:` is 3 tokens, `__freeze__(` `)` 3, `from a.b import __freeze__` 6.
    markers = 0
    for node in ast.walk(ast.parse(output)):
        if isinstance(node, ast.With) and any(
            isinstance(i.context_expr, ast.Name) and i.context_expr.id == "__freeze__" for i in node.items
        ):
            markers += 3
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "__freeze__":
            markers += 3
        elif isinstance(node, ast.ImportFrom) and any(a.name == "__freeze__" for a in node.names):
            markers += 3 + len((node.module or "").split(".")) * 2 - 1
    return {"dropped": len(kept) < len(fragments), "tokens_unfrozen": size - frozen_tokens - markers}
