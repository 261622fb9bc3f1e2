"""What the import contracts (pyproject.toml, checked by `lint-imports` in bin/test) cannot say:
import-linter sees that labs.execution imports torch, not where. The task's module is imported by the
web process (to send runs), so torch may be imported there only inside a function, run in the worker."""

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
WORKER_ENTRY = "labs/execution.py"  # the pyproject.toml contract "torch-in-the-trainer" lets it import torch
HEAVY = {"torch", "transformers", "accelerate"}


def heavy_imports_run_on_import(source: str) -> list[int]:
    """The lines of the imports of torch (or the Hugging Face libraries) that run when the module is
    imported: anywhere but inside a function."""
    found = []

    def visit(node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
                continue
            if isinstance(child, ast.Import):
                names = [alias.name for alias in child.names]
            elif isinstance(child, ast.ImportFrom):
                names = [child.module or ""]
            else:
                names = []
            if any(name.split(".")[0] in HEAVY for name in names):
                found.append(child.lineno)
            visit(child)

    visit(ast.parse(source))
    return found


def test_the_worker_task_imports_torch_only_inside_functions():
    lines = heavy_imports_run_on_import((ROOT / WORKER_ENTRY).read_text("utf-8"))
    assert lines == [], f"{WORKER_ENTRY} imports torch when imported (lines {lines}): the web process would load it"


def test_the_rule_finds_what_it_looks_for():
    """On made-up modules: a pass above means no such import is there."""
    source = (
        "import torch\n"
        "from torch import nn\n"
        "if True:\n"
        "    import accelerate.utils\n"
        "class Task:\n"
        "    from transformers import Trainer\n"
        "def run():\n"
        "    import torch\n"
        "    from labs.training.loop import run_experiment\n"
    )
    assert heavy_imports_run_on_import(source) == [1, 2, 4, 6]
    assert heavy_imports_run_on_import("def run():\n    import torch\n") == []
