"""The library versions the course's code is tested with, read from the pinned requirements (so a
page never states a version by hand that CI did not run)."""

import re

from django.conf import settings

# (name shown, package as pinned); the first is in requirements.txt, the others in requirements-dev.txt.
SHOWN = [
    ("PyTorch", "torch"),
    ("Accelerate", "accelerate"),
    ("Lightning", "lightning"),
    ("Transformers", "transformers"),
]
PIN_RE = re.compile(r"^(?P<name>[A-Za-z0-9_.-]+)(?:\[[^\]]*\])?==(?P<version>[^\s;#]+)", re.MULTILINE)


def pinned_versions() -> dict[str, str]:
    pins = {}
    for name in ("requirements.txt", "requirements-dev.txt"):
        path = settings.BASE_DIR / name
        if path.exists():
            pins.update({m["name"].lower(): m["version"] for m in PIN_RE.finditer(path.read_text(encoding="utf-8"))})
    return pins


def tested_with(packages: list[tuple[str, str]] = SHOWN) -> list[tuple[str, str]]:
    """[(shown name, version)] of the packages pinned, in SHOWN's order."""
    pins = pinned_versions()
    return [(shown, pins[package]) for shown, package in packages if package in pins]


def tested_with_text(packages: list[tuple[str, str]] = SHOWN) -> str:
    """ "PyTorch 2.13.0, Accelerate 1.15.0, …" for a sentence."""
    return ", ".join(f"{shown} {version}" for shown, version in tested_with(packages))
