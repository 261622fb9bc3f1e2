"""The shape of the code, read from the source (every import statement, at module level or inside a
function): dependencies between the apps point one way, no module of an app imports itself back
through others, and torch stays in the trainer (labs/training/) and the worker's task."""

import ast
from dataclasses import dataclass
from itertools import pairwise
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
# Lowest first. An app may import apps of its own layer or of lower ones (never a cycle), not higher.
LAYERS = (("config",), ("accounts",), ("course",), ("quizzes", "certificates", "labs"))
LAYER_OF = {app: number for number, apps in enumerate(LAYERS) for app in apps}
APPS = [app for app in LAYER_OF if (ROOT / app).is_dir()]
# The wiring of URLs, the JSON API and the Celery app assembles the apps, so it may import any of them.
WIRING = {"config/urls.py", "config/api.py", "config/celery.py"}
TRAINER = "labs/training/"  # plain PyTorch, imported by the worker only
WORKER_ENTRY = "labs/execution.py"  # imports torch inside the task's function, never at module level
HEAVY = {"torch", "transformers", "accelerate"}  # kept out of the web process like torch


@dataclass(frozen=True)
class Import:
    path: str  # the importing file, relative to the repository root
    line: int
    statement: str
    module: str  # the absolute name of the module imported
    top_level: bool  # at module level (run on import), not inside a function

    @property
    def app(self) -> str:
        return self.path.split("/")[0]

    def __str__(self) -> str:
        return f"{self.path}:{self.line} `{self.statement}`"


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _is_module(name: str) -> bool:
    path = ROOT.joinpath(*name.split("."))
    return path.with_suffix(".py").is_file() or (path / "__init__.py").is_file()


def _targets(node: ast.Import | ast.ImportFrom, package: str) -> list[str]:
    """The modules a statement imports; `from . import views` imports the module `<app>.views`."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    base = node.module or ""
    if node.level:
        anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
        base = ".".join([*anchor, base] if base else anchor)
    names = [f"{base}.{alias.name}" for alias in node.names]
    return [name for name in names if _is_module(name)] or [base]


def imports_in(source: str, path: str) -> list[Import]:
    """Every import statement of one file (`path` relative to the repository root)."""
    module = _module_name(ROOT / path)
    package = module if path.endswith("__init__.py") else module.rpartition(".")[0]
    found = []

    def visit(node: ast.AST, top_level: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.Import | ast.ImportFrom):
                for target in _targets(child, package):
                    found.append(Import(path, child.lineno, ast.unparse(child), target, top_level))
            inside = isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda)
            visit(child, top_level and not inside)

    visit(ast.parse(source, filename=path), True)
    return found


def project_imports() -> list[Import]:
    files = [path for app in APPS for path in sorted((ROOT / app).rglob("*.py"))]
    return [found for path in files for found in imports_in(path.read_text("utf-8"), str(path.relative_to(ROOT)))]


def _app(module: str) -> str:
    return module.split(".")[0]


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One cycle of the graph (its nodes, the first repeated at the end), or None."""
    done, path = set(), []

    def walk(node: str) -> list[str] | None:
        if node in path:
            return [*path[path.index(node) :], node]
        if node in done:
            return None
        path.append(node)
        for after in sorted(graph.get(node, ())):
            if cycle := walk(after):
                return cycle
        path.pop()
        done.add(node)
        return None

    return next((cycle for node in sorted(graph) if (cycle := walk(node))), None)


def _cycle_of(pairs: list[tuple[str, str, Import]]) -> str:
    """One cycle among (importer, imported, statement) pairs, each hop with its file and line; "" if none."""
    graph, edges = {}, {}
    for source, target, found in pairs:
        graph.setdefault(source, set()).add(target)
        edges.setdefault((source, target), found)
    cycle = _cycle(graph) or []
    return "\n".join(f"  {a} -> {b}: {edges[a, b]}" for a, b in pairwise(cycle))


def upward_imports(imports: list[Import]) -> list[str]:
    return [
        f"{found}: {found.app} (layer {LAYER_OF[found.app]}) imports {_app(found.module)} "
        f"(layer {LAYER_OF[_app(found.module)]})"
        for found in imports
        if _app(found.module) in LAYER_OF
        and found.path not in WIRING
        and LAYER_OF[_app(found.module)] > LAYER_OF[found.app]
    ]


def app_cycle(imports: list[Import]) -> str:
    return _cycle_of(
        [
            (found.app, _app(found.module), found)
            for found in imports
            if _app(found.module) in LAYER_OF and _app(found.module) != found.app and found.path not in WIRING
        ]
    )


def _unit(module: str) -> str:
    """A module of an app, or a sub-package as a whole (labs.training: the trainer, its own library)."""
    return ".".join(module.split(".")[:2])


def module_cycle(imports: list[Import], app: str) -> str:
    return _cycle_of(
        [
            (_unit(_module_name(ROOT / found.path)), _unit(found.module), found)
            for found in imports
            if found.app == _app(found.module) == app and _unit(found.module) != _unit(_module_name(ROOT / found.path))
        ]
    )


def trainer_imports_outside_it(imports: list[Import]) -> list[str]:
    """The trainer is plain PyTorch: no Django, nothing of the site but itself."""
    return [
        str(found)
        for found in imports
        if found.path.startswith(TRAINER)
        and (_app(found.module) in {"django", *LAYER_OF} and not found.module.startswith("labs.training"))
    ]


def misplaced_torch(imports: list[Import]) -> list[str]:
    return [
        str(found)
        for found in imports
        if _app(found.module) in HEAVY
        and not found.path.startswith(TRAINER)
        and (found.top_level or found.path != WORKER_ENTRY)
    ]


@pytest.fixture(scope="module")
def imports() -> list[Import]:
    return project_imports()


def test_apps_import_only_their_own_layer_or_lower_ones(imports):
    order = " < ".join("/".join(apps) for apps in LAYERS)
    upward = upward_imports(imports)
    assert not upward, f"Dependencies point down ({order}); these point up:\n" + "\n".join(upward)


def test_no_import_cycle_between_apps(imports):
    cycle = app_cycle(imports)
    assert not cycle, "These apps import each other:\n" + cycle


@pytest.mark.parametrize("app", APPS)
def test_no_import_cycle_between_the_modules_of_an_app(imports, app):
    cycle = module_cycle(imports, app)
    assert not cycle, f"Modules of {app} import each other:\n" + cycle


def test_the_trainer_imports_neither_django_nor_the_site(imports):
    outside = trainer_imports_outside_it(imports)
    assert not outside, f"{TRAINER} is plain PyTorch, importable without Django:\n" + "\n".join(outside)


def test_torch_is_imported_only_by_the_trainer_and_inside_the_worker_task(imports):
    misplaced = misplaced_torch(imports)
    assert not misplaced, (
        f"torch belongs in {TRAINER} and, inside the task's function, {WORKER_ENTRY} (the web process "
        "never loads it):\n" + "\n".join(misplaced)
    )


def test_each_rule_finds_what_it_looks_for():
    """The rules, on made-up files: a pass here and nothing found above means nothing is there."""
    probe = imports_in("import torch\n\ndef run():\n    from . import tasks\n    import torch\n", "labs/probe.py")
    assert [(found.module, found.top_level) for found in probe] == [
        ("torch", True),
        ("labs.tasks", False),  # a module of the app, found inside a function
        ("torch", False),
    ]
    assert misplaced_torch(probe) == ["labs/probe.py:1 `import torch`", "labs/probe.py:5 `import torch`"]
    assert misplaced_torch(imports_in("def run():\n    import torch\n", WORKER_ENTRY)) == []
    assert misplaced_torch(imports_in("import torch\n", WORKER_ENTRY)) == [f"{WORKER_ENTRY}:1 `import torch`"]
    assert misplaced_torch(imports_in("import torch.nn as nn\n", f"{TRAINER}models.py")) == []
    assert misplaced_torch(imports_in("from transformers import Trainer\n", "course/views.py")) == [
        "course/views.py:1 `from transformers import Trainer`"
    ]

    dashboard = imports_in("def dashboard():\n    from labs.selectors import runs_of\n", "accounts/views.py")
    assert upward_imports(dashboard) == [
        "accounts/views.py:2 `from labs.selectors import runs_of`: accounts (layer 1) imports labs (layer 3)"
    ]
    assert upward_imports(imports_in("from labs import views\n", "config/urls.py")) == []  # the wiring

    peers = imports_in("from labs import models\n", "quizzes/probe.py") + imports_in(
        "from quizzes import models\n", "labs/probe.py"
    )
    assert app_cycle(peers) == (
        "  labs -> quizzes: labs/probe.py:1 `from quizzes import models`\n"
        "  quizzes -> labs: quizzes/probe.py:1 `from labs import models`"
    )
    loop = imports_in("from . import services\n", "labs/tasks.py") + imports_in(
        "def enqueue():\n    from . import tasks\n", "labs/services.py"
    )
    assert "labs.services -> labs.tasks: labs/services.py:2 `from . import tasks`" in module_cycle(loop, "labs")
    trainer = imports_in("from django.conf import settings\nfrom .loop import run_experiment\n", f"{TRAINER}probe.py")
    assert trainer_imports_outside_it(trainer) == [f"{TRAINER}probe.py:1 `from django.conf import settings`"]
