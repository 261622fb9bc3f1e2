"""Lighthouse on every guide page and every other kind of page, in every language, as a phone sees it.

Starts its own copy of the site `make run` serves (bench/harness.py: production settings, gunicorn,
its own Redis, and a copy of the run command's database, narration and keys, so the pages are the
ones learners get: narration, the reference runs' figures, the real content), then runs
Lighthouse (npm `lighthouse`, pinned in bench/package.json, installed by
bin/setup --test into bench/node_modules) with Debian's chromium, the browser the tests use
(CHROME_PATH). Lighthouse's default settings are its mobile preset: a phone-sized screen, a CPU
slowed 4 times and a simulated slow 4G network. Each page is loaded `--runs` times, one after the
other; every score is the median over the runs. The figures move with the machine's load (the
simulated throttling scales what this machine measured), performance most of all.

    .venv/bin/python bench/lighthouse.py [--runs 3] [--languages en hi fr] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))

from harness import http_get, machine_description, running_site  # noqa: E402
from load import learner_cookie  # noqa: E402

LIGHTHOUSE = BENCH / "node_modules" / "lighthouse" / "cli" / "index.js"
CHROMIUM = "/usr/bin/chromium"
# The tests' flags (tests/browser/conftest.py); headless, as nothing here has a screen.
CHROME_FLAGS = "--headless=new --no-sandbox --disable-gpu --disable-dev-shm-usage --no-first-run"
CATEGORIES = ("performance", "accessibility", "best-practices", "seo")
# Timings and sizes shown beside the scores (Lighthouse audit ids).
METRICS = {
    "first-contentful-paint": "FCP ms",
    "largest-contentful-paint": "LCP ms",
    "total-blocking-time": "TBT ms",
    "cumulative-layout-shift": "CLS",
    "dom-size": "DOM elements",
}


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3, help="Lighthouse runs per page and language")
    parser.add_argument("--languages", nargs="+", default=["en", "hi", "fr"])
    parser.add_argument("--pages", nargs="+", help="only these page names (see page_paths)")
    parser.add_argument("--json", type=Path, help="write the results here")
    parser.add_argument(
        "--state",
        type=Path,
        default=BENCH.parent / "var",
        help="the STATE_DIR of the site `make run` serves, copied (database, narration, keys) for the measured site",
    )
    return parser.parse_args(argv)


def page_paths(seed: dict[str, Any]) -> dict[str, str]:
    """Every page a learner meets on the way through the course, by its English path: each guide,
    and one page of every other kind (bench/seed.py made the learner, the certificate and the run)."""
    pages = {"home": seed["home_path"], "course overview": seed["course_path"], "guide list": seed["guide_index_path"]}
    pages |= {f"guide {path.rstrip('/').rsplit('/', 1)[-1]}": path for path in seed["guide_paths"]}
    pages |= {
        "quiz landing": seed["quiz_path"],
        "lab index": "/en/labs/",
        "lab preset": seed["preset_path"],
        "certificate verify": seed["verify_path"],
        "certificate": seed["certificate_path"],
        "run page": seed["reference_run_path"],
        "compare": seed["compare_path"],
        "dashboard": seed["dashboard_path"],
    }
    return {name: path for name, path in pages.items() if path}  # no trained reference run: no run page


SIGNED_IN = {"dashboard"}  # loaded with the seeded learner's session


def in_language(path: str, language: str) -> str:
    return f"/{language}/" + path.removeprefix("/en/")


# Lighthouse sometimes fails to record a page load's trace (NO_NAVSTART, NO_FCP...) and says to
# run it again; on a busy machine that ended a half-hour `make bench` at its sixth page.
RUN_AGAIN = "Please run Lighthouse again"
ATTEMPTS = 3


def lighthouse(url: str, folder: Path, cookie: str = "") -> dict[str, Any]:
    """One Lighthouse run, again when Lighthouse asks for it (at most ATTEMPTS in all)."""
    for attempt in range(1, ATTEMPTS):
        try:
            return lighthouse_once(url, folder, cookie)
        except RuntimeError as error:
            if RUN_AGAIN not in str(error):
                raise
            print(f"  Lighthouse asked to run again on {url} (attempt {attempt}): {error}", flush=True)
    return lighthouse_once(url, folder, cookie)


def lighthouse_once(url: str, folder: Path, cookie: str = "") -> dict[str, Any]:
    """One Lighthouse run (mobile preset) and what its report says."""
    report = folder / "report.json"
    command = ["node", str(LIGHTHOUSE), url, "--output=json", f"--output-path={report}", "--quiet"]
    command += [f"--only-categories={','.join(CATEGORIES)}", f"--chrome-flags={CHROME_FLAGS}"]
    command += ["--max-wait-for-load=60000"]
    if cookie:
        command += [f"--extra-headers={json.dumps({'Cookie': cookie})}"]
    env = {**os.environ, "CHROME_PATH": CHROMIUM}
    result = subprocess.run(command, env=env, capture_output=True, text=True, timeout=300)
    if result.returncode != 0 or not report.exists():
        raise RuntimeError(f"lighthouse failed on {url} ({result.returncode}):\n{result.stderr[-3000:]}")
    data = json.loads(report.read_text())
    report.unlink()
    if data.get("runtimeError"):
        raise RuntimeError(f"lighthouse could not load {url}: {data['runtimeError']}")
    return summarize(data)


def summarize(data: dict[str, Any]) -> dict[str, Any]:
    audits = data["audits"]
    scores = {name: round(data["categories"][name]["score"] * 100) for name in CATEGORIES}
    metrics = {label: audits[audit_id].get("numericValue") for audit_id, label in METRICS.items()}
    failing = {}
    for name in CATEGORIES[1:]:  # performance's opportunities are in its metrics
        for ref in data["categories"][name]["auditRefs"]:
            audit = audits[ref["id"]]
            if ref["weight"] and audit.get("score") is not None and audit["score"] < 1:
                failing[ref["id"]] = audit["title"]
    return {"scores": scores, "metrics": metrics, "failing": failing}


def median_of(runs: list[dict[str, Any]]) -> dict[str, Any]:
    scores = {name: statistics.median(run["scores"][name] for run in runs) for name in CATEGORIES}
    metrics = {}
    for label in METRICS.values():
        values = [run["metrics"][label] for run in runs if run["metrics"][label] is not None]
        metrics[label] = statistics.median(values) if values else None
    failing = {}
    for run in runs:
        failing |= run["failing"]
    return {"scores": scores, "metrics": metrics, "failing": failing, "runs": [run["scores"] for run in runs]}


def lighthouse_version() -> str:
    package = json.loads((LIGHTHOUSE.parent.parent / "package.json").read_text())
    return package["version"]


def chromium_version() -> str:
    result = subprocess.run([CHROMIUM, "--version"], capture_output=True, text=True, timeout=30)
    return result.stdout.strip()


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if not LIGHTHOUSE.exists() or not shutil.which("node"):
        raise SystemExit("Lighthouse is not installed: run bin/setup --test (it installs bench/node_modules)")
    results: list[dict[str, Any]] = []
    load_before = os.getloadavg()[1]  # the machine's load over 5 minutes: how noisy performance will be
    with (
        running_site(workers=2, state_from=args.state) as site,
        tempfile.TemporaryDirectory(prefix="gac-lighthouse-") as folder,
    ):
        pages = page_paths(site.seed)
        cookie = learner_cookie(site)
        for name in args.pages or pages:
            for language in args.languages:
                path = in_language(pages[name], language)
                headers = {"Cookie": cookie} if name in SIGNED_IN else None
                status = http_get(site.url, path, headers)[0]
                if status != 200:
                    raise RuntimeError(f"{path} answered {status}")
                page_cookie = cookie if name in SIGNED_IN else ""
                runs = [lighthouse(site.url + path, Path(folder), page_cookie) for _ in range(args.runs)]
                row = {"page": name, "language": language, "path": path, **median_of(runs)}
                print(f"{name:20} {language}  {row['scores']}", flush=True)
                results.append(row)
        narration, reference_runs = site.seed["narration"], site.seed["compare_path"].count("run=")
    output = {
        "settings": {"runs": args.runs, "preset": "mobile (Lighthouse's default)", "categories": CATEGORIES},
        "lighthouse": lighthouse_version(),
        "chromium": chromium_version(),
        "machine": {**machine_description(), "load_average_5min": [load_before, os.getloadavg()[1]]},
        "site": {"state_from": str(args.state), "narration": narration, "reference_runs": reference_runs},
        "pages": results,
    }
    if args.json:
        args.json.write_text(json.dumps(output, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
