"""The training code's version, derived from the code itself so it cannot be forgotten.

A hash of every Python file in this package (names and bytes, in a fixed order). Any change to
the model, data, loop or metrics changes it, so stored results are not reused and the reference
sweeps are computed again. Plain file reading: the web process calls this without torch.
"""

import hashlib
from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parent
DIGITS = 12  # LabRun.code_version holds 20 characters


def training_code_version(package_dir: Path = PACKAGE_DIR) -> str:
    digest = hashlib.sha256()
    for path in sorted(package_dir.rglob("*.py")):
        if "__pycache__" in path.parts:
            continue
        digest.update(path.relative_to(package_dir).as_posix().encode() + b"\0")
        digest.update(path.read_bytes().replace(b"\r\n", b"\n") + b"\0")
    return digest.hexdigest()[:DIGITS]
