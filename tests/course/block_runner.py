"""Runs guide code blocks as `python block.py` would, each in its own process, forked from one that
has already made the blocks' imports: PyTorch (and transformers) are imported once for all blocks
instead of once per block, about 2 s of CPU each time. Nothing else runs before the forks, so every
block starts from the state a fresh interpreter has after its imports.

    python block_runner.py RESULTS.json BLOCK.py [BLOCK.py ...]

Each block's exit code and the tail of its output go to RESULTS.json, keyed by its path.
"""

import ast
import json
import os
import runpy
import signal
import sys
import traceback
from pathlib import Path

TIMEOUT_SECONDS = 120  # per block, as the one-subprocess-per-block test allowed


def top_level_imports(paths: list[Path]) -> list[str]:
    """The blocks' module-level import statements, to run once before forking."""
    statements = []
    for path in paths:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        statements += [ast.unparse(node) for node in tree.body if isinstance(node, ast.Import | ast.ImportFrom)]
    return list(dict.fromkeys(statements))


def preload(statements: list[str]) -> None:
    for statement in statements:
        try:
            exec(statement, {})
        except Exception:  # the block that makes this import reports the error itself
            pass


def run_in_child(path: Path, output: Path) -> None:
    """In the forked child: run the block as __main__, its stdout and stderr into `output`; never returns."""
    code = 1
    try:
        fd = os.open(output, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        os.dup2(fd, 1)
        os.dup2(fd, 2)
        signal.alarm(TIMEOUT_SECONDS)  # SIGALRM's default action ends the block that runs too long
        sys.path[0] = str(path.parent)  # as for `python block.py`
        runpy.run_path(str(path), run_name="__main__")
        code = 0
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    except BaseException:
        traceback.print_exc()
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)


def run_block(path: Path) -> dict:
    output = path.with_suffix(".output")
    pid = os.fork()
    if pid == 0:
        run_in_child(path, output)
    _, status = os.waitpid(pid, 0)
    code = os.waitstatus_to_exitcode(status)
    text = output.read_text(encoding="utf-8", errors="replace") if output.exists() else ""
    if code == -signal.SIGALRM:
        text += f"\nThe block ran for more than {TIMEOUT_SECONDS} s and was stopped."
    return {"returncode": code, "output": text[-4000:]}


def main(results_path: str, *block_paths: str) -> None:
    paths = [Path(p) for p in block_paths]
    preload(top_level_imports(paths))
    results = {str(path): run_block(path) for path in paths}
    Path(results_path).write_text(json.dumps(results), encoding="utf-8")


if __name__ == "__main__":
    main(*sys.argv[1:])
