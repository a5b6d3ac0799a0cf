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
