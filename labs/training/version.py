"""The training code's version, derived from the code itself so it cannot be forgotten, and the
version of the text guides-lm learns from.

A hash of what runs: every Python file in this package (its name, and its syntax tree printed back
as code without docstrings and without the text of messages marked for translation, `gettext_noop`:
a setting's label and help, an error's wording; comments never reach the tree), in a fixed order.
Any change to the model, data, loop or metrics changes it, so stored results are not reused and the
reference sweeps are computed again; a docstring, comment or wording edit does not (ast.unparse prints
the tree; the site and its workers run one Python, which prints it alike). guides-lm's data is the guides themselves
(data.py): a hash of the files it reads goes into a guides-lm run's fingerprint, so editing a guide
trains it again.
Plain file reading: the web process calls this without torch.
"""

import ast
import hashlib
import os
from functools import lru_cache
from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parent
DIGITS = 12  # LabRun.code_version holds 20 characters
GUIDE_LANGUAGES = ("en", "hi", "fr")
DEFAULT_TEXT_DIR = PACKAGE_DIR.parents[1] / "content" / "guides"  # the repository's own guides
MESSAGE_MARKER = "gettext_noop"  # problems.py: text a learner reads, translated where shown


def training_code_version(package_dir: Path = PACKAGE_DIR) -> str:
    digest = hashlib.sha256()
    for path in sorted(package_dir.rglob("*.py")):
        if "__pycache__" not in path.parts:
            digest.update(path.relative_to(package_dir).as_posix().encode() + b"\0")
            digest.update(code_without_prose(path.read_text()).encode() + b"\0")
    return digest.hexdigest()[:DIGITS]


def code_without_prose(source: str) -> str:
    """The module as Python runs it: parsed, its docstrings and its messages' text removed, printed back."""
    tree = ast.parse(source)
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == MESSAGE_MARKER:
            node.args = [ast.Constant("") if isinstance(arg, ast.Constant) else arg for arg in node.args]
        body = getattr(node, "body", None)
        if (
            isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
            and body
            and isinstance(body[0], ast.Expr)
            and isinstance(body[0].value, ast.Constant)
            and isinstance(body[0].value.value, str)
        ):
            node.body = body[1:] or [ast.Pass()]
    return ast.unparse(tree)


def guide_text_files(text_dir: Path | str) -> list[Path]:
    """The files guides-lm reads: ``<text_dir>/<slug>/{en,hi,fr}.md``, in a fixed order."""
    return [path for path in sorted(Path(text_dir).glob("*/*.md")) if path.stem in GUIDE_LANGUAGES]


def guide_text_version(text_dir: Path | str | None = None) -> str:
    """A hash of guides-lm's text (names relative to ``text_dir`` and bytes): the same text in
    another folder gives the same version. Cached while no file's size or time changes."""
    files = guide_text_files(text_dir or DEFAULT_TEXT_DIR)
    stamps = tuple((str(path), (st := os.stat(path)).st_mtime_ns, st.st_size) for path in files)
    return _text_version(str(Path(text_dir or DEFAULT_TEXT_DIR)), stamps)


@lru_cache(maxsize=8)
def _text_version(text_dir: str, stamps: tuple[tuple[str, int, int], ...]) -> str:
    return _digest(Path(text_dir), [Path(name) for name, _mtime, _size in stamps])


def _digest(root: Path, paths: list[Path]) -> str:
    """Each file's name relative to ``root`` and its bytes (line endings made LF), in order."""
    digest = hashlib.sha256()
    for path in paths:
        digest.update(path.relative_to(root).as_posix().encode() + b"\0")
        digest.update(path.read_bytes().replace(b"\r\n", b"\n") + b"\0")
    return digest.hexdigest()[:DIGITS]
