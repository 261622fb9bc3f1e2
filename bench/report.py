"""Runs every benchmark under bench/ with its full settings and writes docs/PERFORMANCE.md.

Each benchmark runs in its own process, one after the other, and writes its JSON; this script
only collects the figures and describes the machine. `make bench` (bin/bench) runs it after
the set-up.

    .venv/bin/python bench/report.py [--quick] [--out docs/PERFORMANCE.md]
    .venv/bin/python bench/report.py --lighthouse-only   # Lighthouse again, the rest of the file kept
    .venv/bin/python bench/report.py --signed-in-only    # the signed-in pages again, the rest kept
    .venv/bin/python bench/report.py --workshop-only     # the short workshop again, the rest kept
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
sys.path.insert(0, str(BENCH))

from harness import machine_description  # noqa: E402
from workshop import WORKSHOP_TITLE, markdown_section  # noqa: E402

# name: (script, options). Full settings for `make bench`, and tiny ones to try the report itself.
FULL = {
    "load": ("load", ["--duration", "8", "--rounds", "5", "--connections", "8"]),
    "load_returning": ("load", ["--duration", "8", "--rounds", "5", "--connections", "8", "--returning"]),
    "load_signed_in": ("load", ["--duration", "8", "--rounds", "5", "--connections", "8", "--signed-in"]),
    "quiz_roundtrip": ("quiz_roundtrip", ["--answers", "200"]),
    "lab_latency": ("lab_latency", ["--repeats", "9"]),
    "trainer": ("trainer", ["--task", "digits-cnn", "--rounds", "7", "--steps", "200"]),
    "trainer_lm": ("trainer", ["--task", "tiny-lm", "--rounds", "7", "--steps", "200"]),
    "trainer_guides_lm": ("trainer", ["--task", "guides-lm", "--rounds", "5", "--steps", "40"]),
    "data_parallel": ("data_parallel", ["--processes", "2", "--rounds", "5", "--steps", "100"]),
    "gpu_check": ("gpu_check", ["--cpu"]),
    "lighthouse": ("lighthouse", ["--runs", "3"]),
    # The short workshop; the full one (100 learners, 15 min, SQLite and PostgreSQL) is in docs/SCALING.md.
    "workshop": ("workshop", ["--learners", "30", "--duration", "240", "--think-scale", "0.2"]),
}
QUICK = {
    "load": ("load", ["--duration", "2", "--rounds", "2", "--connections", "4"]),
    "load_returning": ("load", ["--duration", "2", "--rounds", "2", "--connections", "4", "--returning"]),
    "load_signed_in": ("load", ["--duration", "2", "--rounds", "2", "--connections", "4", "--signed-in"]),
    "quiz_roundtrip": ("quiz_roundtrip", ["--answers", "20"]),
    "lab_latency": ("lab_latency", ["--repeats", "2"]),
    "trainer": ("trainer", ["--task", "digits-cnn", "--rounds", "2", "--steps", "20"]),
    "trainer_lm": ("trainer", ["--task", "tiny-lm", "--rounds", "2", "--steps", "20"]),
    "trainer_guides_lm": ("trainer", ["--task", "guides-lm", "--rounds", "2", "--steps", "5"]),
    "data_parallel": ("data_parallel", ["--processes", "2", "--rounds", "1", "--steps", "5"]),
    "gpu_check": ("gpu_check", ["--cpu", "--quick"]),
    "lighthouse": (
        "lighthouse",
        ["--runs", "1", "--languages", "en", "--pages", "guide what-is-gradient-accumulation"],
    ),
    "workshop": ("workshop", ["--learners", "3", "--duration", "30", "--think-scale", "0.02"]),
}


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="tiny settings, to check that everything runs")
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "PERFORMANCE.md")
    parser.add_argument(
        "--lighthouse-only", action="store_true", help="run only Lighthouse and replace its section of --out"
    )
    parser.add_argument(
        "--signed-in-only",
        action="store_true",
        help="run only the signed-in load test and replace its section of --out",
    )
    parser.add_argument(
        "--trainer-only",
        action="store_true",
        help="run only the three trainer benchmarks and replace their section of --out",
    )
    parser.add_argument(
        "--workshop-only", action="store_true", help="run only the short workshop and replace its section of --out"
    )
    return parser.parse_args(argv)


def run_benchmark(name: str, script: str, options: list[str], folder: Path) -> tuple[dict[str, Any], float]:
    out = folder / f"{name}.json"
    command = [sys.executable, str(BENCH / f"{script}.py"), *options, "--json", str(out)]
    print(f"==> {' '.join(command[1:])}", flush=True)
    started = time.monotonic()
    result = subprocess.run(command, cwd=ROOT)
    if result.returncode != 0:
        raise SystemExit(f"{name} failed (exit {result.returncode}); docs/PERFORMANCE.md was not written")
    return json.loads(out.read_text()), time.monotonic() - started


def tool_version(command: list[str]) -> str:
    try:
        result = subprocess.run(command, capture_output=True, text=True, timeout=10)
    except OSError:
        return "not installed"
    lines = (result.stdout or result.stderr).strip().splitlines()
    return lines[0] if lines else "unknown"


def software() -> dict[str, str]:
    import django
    import gunicorn

    return {
        "Django": django.get_version(),
        "gunicorn": gunicorn.__version__,
        "wrk": tool_version(["wrk", "--version"]).split(" [")[0].removeprefix("wrk "),
        "Redis": tool_version(["redis-server", "--version"]).split(" sha=")[0].removeprefix("Redis server v="),
    }


def machine_section(machine: dict[str, Any], versions: dict[str, str], torch_version: str) -> list[str]:
    return [
        "## Machine",
        "",
        f"- CPU: {machine['cpu']}, {machine['cores']} cores visible",
        f"- Memory: {machine['memory_gib']} GiB",
        f"- OS: {machine['os']}",
        f"- Python {machine['python']}, PyTorch {torch_version}, "
        + ", ".join(f"{name} {version}" for name, version in versions.items()),
        f"- Measured: {machine['date']}",
        "",
        "The machine is shared with other work, so every ratio compares two things measured side by side",
        "in the same run (interleaved, alternating which goes first) and every figure is a median.",
        "",
    ]


def load_section(first: dict[str, Any], returning: dict[str, Any]) -> list[str]:
    s = first["settings"]
    lines = [
        "## Pages under load",
        "",
        f"`bench/load.py`: gunicorn with {s['gunicorn_workers']} sync workers, production settings (DEBUG off, "
        "its own SQLite, Redis and static files, rate limits on), driven by wrk "
        f"({s['wrk_threads']} thread, {s['connections']} connections, {s['duration_s']:g} s per page and round, "
        f"{s['rounds']} rounds, pages interleaved, each round starting with another page). Every figure is the "
        "median over rounds; the ratio is the page's requests per second divided by the minimal view's "
        "(`/ping`: no database, no template) in the same round. Server CPU ms/request is the CPU time of the "
        "gunicorn processes divided by the requests served, and the CPU ratio the minimal view's divided by the "
        "page's: the throughput ratio the server's own work allows, far less disturbed than requests per second "
        "by other programs on the machine (wrk itself runs on the same cores).",
        "",
    ]
    for title, load in (
        ("First-time visitors (no cookies: pages with a form make a new CSRF secret and cookie)", first),
        ("Returning visitors (they send their CSRF cookie, as every later page of a visit does)", returning),
    ):
        lines += [
            f"### {title}",
            "",
            "| Page | Requests/s | p50 ms | p99 ms | Non-2xx | Socket errors | Ratio to minimal view "
            "| Server CPU ms/request | CPU ratio |",
            "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
        ]
        for name, page in load["pages"].items():
            lines.append(
                f"| {name} (`{load['paths'][name]}`) | {page['rps']:.0f} | {page['p50_ms']:.2f} | "
                f"{page['p99_ms']:.2f} | {page['non2xx']} | {page['socket_errors']} | "
                f"{page['ratio_to_minimal']:.2f} | {page['server_cpu_ms']:.3f} | {page['cpu_ratio_to_minimal']:.2f} |"
            )
        lines.append("")
    lines += [_aims_verdict(first, returning), "", *CACHE_NOTE, ""]
    return lines


SIGNED_IN_TITLE = "## A signed-in learner's pages"
# Issue 38: a signed-in learner's pages judged by what they cost, on 2 gunicorn workers (no ratio
# to the minimal view, whose few hundred microseconds no page with a session and a template reaches).
SIGNED_IN_AIMS = {"rps": 300, "server_cpu_ms": 6.0}


def signed_in_section(signed_in: dict[str, Any]) -> list[str]:
    s, machine = signed_in["settings"], signed_in["machine"]
    load = signed_in.get("load_average_1min")
    lines = [
        SIGNED_IN_TITLE,
        "",
        f"`bench/load.py --signed-in`: the same server (gunicorn with {s['gunicorn_workers']} sync workers, "
        "production settings) driven by wrk as above, with the session cookie of the seeded learner (the final "
        "exam passed and its certificate, a guide quiz half answered, a preset's sweep of lab runs, every guide "
        "opened, an API token). These pages are rendered for the learner, never from the page cache, and each is "
        "judged by what it costs: requests per second under wrk, the server's CPU time per request (the gunicorn "
        "processes' CPU time from /proc over the page's runs, divided by the requests served), and its SQL "
        "queries, counted with Django's test client on the same database, on a first view with the cache empty "
        "(every per-learner fragment rendered) and on the next view (what the load measures). wrk runs on the "
        "same cores as the server and the machine is shared, so requests per second move with the work around "
        f"it; the CPU per request moves less. Measured {machine['date']} on {machine['cores']} cores"
        + (f", 1-minute load average {load[0]:.1f} at the start and {load[1]:.1f} at the end." if load else "."),
        "",
        "| Page | Requests/s | p50 ms | p99 ms | Server CPU ms/request | SQL queries: first view / cached "
        "| Non-2xx | Socket errors |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for name, page in signed_in["pages"].items():
        queries = page.get("queries", {})
        lines.append(
            f"| {name} (`{signed_in['paths'][name]}`) | {page['rps']:.0f} | {page['p50_ms']:.2f} | "
            f"{page['p99_ms']:.2f} | {page['server_cpu_ms']:.2f} | {queries.get('first_view', '-')} / "
            f"{queries.get('cached', '-')} | {page['non2xx']} | {page['socket_errors']} |"
        )
    missed = [
        f"{name} {page['rps']:.0f} requests/s, {page['server_cpu_ms']:.2f} ms"
        for name, page in signed_in["pages"].items()
        if page["rps"] < SIGNED_IN_AIMS["rps"] or page["server_cpu_ms"] > SIGNED_IN_AIMS["server_cpu_ms"]
    ]
    failed = sum(page["non2xx"] + page["socket_errors"] for page in signed_in["pages"].values())
    lines += [
        "",
        f"Aim, for every page: at least {SIGNED_IN_AIMS['rps']} requests/s and at most "
        f"{SIGNED_IN_AIMS['server_cpu_ms']:g} ms of server CPU per request, and no query per item of the "
        "learner's data (no N+1: `tests/test_signed_in_queries.py` counts each page's queries for a learner "
        "with one and with ten of everything, and they must be equal). "
        + ("Every page meets it." if not missed else "Short of it: " + "; ".join(missed) + ".")
        + _base_cost(signed_in["pages"])
        + f" Requests that failed or answered other than 2xx: {failed}.",
        "",
        *SIGNED_IN_NOTE,
        "",
    ]
    return lines


# The aims of the issue "every public page fast": a page's throughput over the minimal view's.
PAGE_AIMS = {"guide page": 0.9, "home page": 0.5, "guide list": 0.5, "quiz landing": 0.5}
PAGE_AIMS |= {"preset page": 0.5, "certificate page": 0.5}
ANSWER_AIM = 3.0  # an htmx quiz answer's latency over the minimal view's, at most
CACHE_NOTE = [
    "Every public page is cached whole for visitors without a session (`course/page_cache.py`), answered",
    "near the top of the middleware stack, before sessions, CSRF, URL resolution and the view run, with one",
    "round trip to Redis for the page and the content hash together. Such pages carry no per-visitor CSRF",
    "token: the newsletter form needs none (double opt-in, see `course/views.py`) and the quiz's start form",
    "fetches its token when it is sent. No process keeps a copy of its own: a change made anywhere shows at",
    "once. The cache backend is django-redis, which keeps one Redis client per process (a read measured",
    "100 us of CPU, against 211 us with Django's RedisCache, which builds a client per call).",
]


def _base_cost(pages: dict[str, dict[str, Any]]) -> str:
    """What any signed-in page costs before its own work, as the home page measures it here."""
    home = pages.get("home page")
    if not home or home.get("queries", {}).get("cached") != 2:
        return ""
    return (
        f" The home page, which reads only the session and the user and takes the rest from the cache, "
        f"cost {home['server_cpu_ms']:.2f} ms of CPU per request in this run: what a signed-in page costs "
        "here before its own work."
    )


SIGNED_IN_NOTE = [
    "What is the same for every learner on these pages (the guide's article, the lists of guides, a figure",
    "panel in a given state) is a template fragment or a cache entry keyed by the content hash, so a content",
    "sync retires it at once. What is the learner's own is cached per learner where it costs queries",
    "(`accounts/learner_versions.py`): the cache holds a version per learner and kind of data (quiz results,",
    "guides read, reviews, certificates, predictions, API tokens, profile), bumped whenever such a row is",
    "saved or deleted and by the services that update rows in bulk (at once and again on commit); the",
    "dashboard's sections are stored under the versions of what they show (their HTML, or their context for",
    "a section with a form: it carries the request's CSRF token), and so are the learner's progress through",
    "the course and their predictions. A lab run's status and progress are read each time: a worker writes",
    "them several times a second. No process keeps a copy of its own. Every page still reads the session and",
    "the user (Django's database sessions) and renders the base layout; an ORM query costs about 0.5-1 ms of",
    "CPU. The lab pages also render for each request the run form's widgets (the lab index), the queue panel",
    "(a count, and a scan of the workers' heartbeats in Redis) and the loss charts.",
]


# What a profile of the answer showed (cProfile under the test client against this benchmark's
# site, then gunicorn's CPU per request), and what was done about it.
ANSWER_NOTE = [
    "An answer goes through Django's standard parts only: its database session, the attempt read with its",
    "quiz (`select_related`), the question, `Answer.objects.create` in a savepoint (the unique constraint",
    "refuses a second answer), the progress line's COUNT, and the rate limit counted by django-ratelimit's",
    "public `get_usage` in the Redis cache. Hand-written SQL and per-process copies that once saved",
    "fractions of a millisecond here were removed (issue 26): clarity over microseconds.",
]


def _aims_verdict(first: dict[str, Any], returning: dict[str, Any]) -> str:
    """Both runs count for the requests that failed."""
    missed = []
    for name, aim in PAGE_AIMS.items():
        for visitors, load in (("first-time", first), ("returning", returning)):
            ratio = load["pages"][name]["ratio_to_minimal"]
            if ratio < aim:
                missed.append(f"{name} {ratio:.2f} for {visitors} visitors (aim {aim:g})")
    failed = sum(
        page["non2xx"] + page["socket_errors"] for load in (first, returning) for page in load["pages"].values()
    )
    aims = ", ".join(f"{name} ≥ {aim:g}" for name, aim in PAGE_AIMS.items())
    aims += " for visitors without a session (a signed-in learner's pages: the next section)"
    verdict = "Every page meets its aim" if not missed else "Short of the aim: " + "; ".join(missed)
    return (
        f"Aims, as a ratio to the minimal view: {aims}. {verdict}. "
        f"Requests that failed or answered other than 2xx, both runs together: {failed}."
    )


def quiz_section(quiz: dict[str, Any]) -> list[str]:
    q = quiz["summary"]
    return [
        "## Quiz answer round trip",
        "",
        f"`bench/quiz_roundtrip.py`: one learner's client posts {q['answers']} answers as htmx does (graded, the "
        "question's card and the progress line come back), each next to a request for the minimal view by the "
        "same client, alternating which goes first; both timed from connecting to the last byte, through gunicorn.",
        "",
        "| | Median ms | p90 ms |",
        "|---|---:|---:|",
        f"| Answer (htmx POST) | {q['answer_median_ms']:.2f} | {q['answer_p90_ms']:.2f} |",
        f"| Minimal view | {q['ping_median_ms']:.2f} | {q['ping_p90_ms']:.2f} |",
        "",
        f"Ratio answer / minimal view: {q['ratio_answer_to_ping']:.1f} (median of paired ratios "
        f"{q['median_paired_ratio']:.1f}); the aim is at most {ANSWER_AIM:g}, which this "
        f"{'meets' if q['ratio_answer_to_ping'] <= ANSWER_AIM else 'misses'}. The web server's CPU per request, "
        f"which the machine's load moves less, over a block of {q['answers']} requests of each kind after the "
        f"timed pairs: answer {q['answer_server_cpu_ms']:.2f} ms, minimal view {q['ping_server_cpu_ms']:.2f} ms.",
        "",
        *ANSWER_NOTE,
        "",
    ]


def lab_section(lab: dict[str, Any]) -> list[str]:
    s = lab["summary"]
    run = s["run"]
    return [
        "## Lab: submission to first progress",
        "",
        "`bench/lab_latency.py`: the site, its Redis and one Celery worker on the `gpu` queue with the embedded "
        "beat, as the run command starts them. With the worker idle, an API client (personal token) submits a "
        f"run (`{run['task']}`, effective batch {run['effective_batch_size']} = {run['accumulation_steps']} × "
        f"{run['effective_batch_size'] // run['accumulation_steps']}, each with its own seed so nothing is reused) "
        f"and polls the run every {s['poll_interval_ms']:.0f} ms until it reports its first optimizer step.",
        "",
        f"- Median over {s['repeats']} submissions: **{s['median_ms']:.0f} ms** (min {s['min_ms']:.0f}, "
        f"max {s['max_ms']:.0f}); device: {s['device']}.",
        f"- The first submission once the worker is ready: {s['first_submission_ms']:.0f} ms. Before it "
        "takes a run, the worker's pool child loads PyTorch and the training code and trains one optimizer step "
        "of the smallest model (`labs/workers.py`, `pool_child_prepare`), which took "
        f"{s['worker_warm_up_s']} s here, so the first run pays no import.",
        "",
    ]


TRAINER_TITLE = "## Trainer: the lab's loop against a bare PyTorch loop"
TRAINER_RUNS = ("trainer", "trainer_lm", "trainer_guides_lm")


def trainers_section(results: list[dict[str, Any]], measured: str = "") -> list[str]:
    """The three tasks' sections under one title; `measured` says when, if not with the whole report."""
    sections = [line for result in results for line in trainer_section(result)]
    return [TRAINER_TITLE, "", *([measured, ""] if measured else []), *sections]


def trainers_only(out: Path) -> int:
    """Runs the three trainer benchmarks with their full settings and replaces only their section of `out`."""
    load_before = os.getloadavg()[0]
    with tempfile.TemporaryDirectory(prefix="gac-bench-report-") as folder:
        results = [run_benchmark(name, *FULL[name], Path(folder))[0] for name in TRAINER_RUNS]
    machine = machine_description()
    measured = (
        f"Measured on their own (`bench/report.py --trainer-only`) {machine['date']} on {machine['cores']} "
        f"cores, 1-minute load average {load_before:.1f} at the start and {os.getloadavg()[0]:.1f} at the end."
    )
    out.write_text(replace_section(out.read_text(), TRAINER_TITLE, trainers_section(results, measured)))
    print(f"wrote the section {TRAINER_TITLE.removeprefix('## ')!r} of {out}")
    return 0


def trainer_section(trainer: dict[str, Any]) -> list[str]:
    speed = trainer["speed"]
    c = speed["config"]
    rounds = len(speed["measures"]["wall"]["lab_steps_per_second"])
    lines = [
        f"### Task `{c['task']}`",
        "",
        f"`bench/trainer.py`: task `{c['task']}`, norm `{c['norm']}`, effective batch {c['effective_batch_size']} = "
        f"{c['accumulation_steps']} × {c['effective_batch_size'] // c['accumulation_steps']}, {c['steps']} steps, "
        f"{rounds} rounds interleaved, on {trainer['device']} with {trainer['threads']} thread(s). The bare loop "
        "is the textbook accumulation loop on the same model, data and validation schedule.",
        "",
        "| Measure | Lab steps/s (median) | Bare steps/s (median) | Lab / bare | Median of paired ratios |",
        "|---|---:|---:|---:|---:|",
    ]
    names = {"wall": "whole run, wall time", "wall_without_validation": "validation left out", "cpu": "CPU time"}
    for measure, m in speed["measures"].items():
        lab, bare = m["lab_steps_per_second"], m["bare_steps_per_second"]
        lines.append(
            f"| {names.get(measure, measure)} | {statistics.median(lab):.1f} | {statistics.median(bare):.1f} "
            f"| {m['ratio_of_medians']:.3f} | {m['median_paired_ratio']:.3f} |"
        )
    memory = trainer["memory"]
    lines += [
        "",
        f"Both loops' warm-up loss curves agree to {speed['warmup_loss_max_abs_difference']:.1e}.",
        *accelerate_lines(trainer["accelerate"], names),
        "",
        f"Activation memory versus N (effective batch {c['effective_batch_size']}, {memory[0]['method']}):",
        "",
        "| N | Micro-batch | Peak activation bytes | Ratio to N = 1 | Ideal 1/N |",
        "|---:|---:|---:|---:|---:|",
    ]
    for row in memory:
        lines.append(
            f"| {row['accumulation_steps']} | {row['micro_batch_size']} | {row['peak_activation_bytes']:,} | "
            f"{row['ratio']:.3f} | {row['ideal']:.3f} |"
        )
    lines.append("")
    return lines


def accelerate_lines(accel: dict[str, Any], names: dict[str, str]) -> list[str]:
    """The same rounds against HF Accelerate's `accumulate`, and the weights both reach after K steps."""
    weights = accel["weights"]
    verdict = "equal" if weights["equal"] else "NOT equal"
    lines = [
        "",
        "Against HF Accelerate's `accumulate` on the same model and data, in the same interleaved rounds: "
        f"after {weights['steps']} steps the weights are {verdict} (largest relative difference "
        f"{weights['max_relative_difference']:.1e}, tolerance {weights['tolerance']:.0e}).",
        "",
        "| Measure | Lab / Accelerate | Median of paired ratios |",
        "|---|---:|---:|",
    ]
    for measure, m in accel["measures"].items():
        lines.append(
            f"| {names.get(measure, measure)} | {m['ratio_of_medians']:.3f} | {m['median_paired_ratio']:.3f} |"
        )
    return lines


DATA_PARALLEL_AIM = 0.95  # the lab's DDP throughput over a bare DDP loop's, at least


def data_parallel_section(result: dict[str, Any]) -> list[str]:
    speed, comm = result["speed"], result["communication"]
    c = speed["config"]
    g, n, batch = c["processes"], c["accumulation_steps"], c["effective_batch_size"]
    lab, bare, ratio = speed["lab_samples_per_second"], speed["bare_samples_per_second"], speed["ratio_of_medians"]
    lines = [
        "## Data-parallel lab: the lab's DDP against a bare DDP loop",
        "",
        f"`bench/data_parallel.py`: task `{c['task']}`, norm `{c['norm']}`, effective batch {batch} = {g} processes "
        f"× {n} micro-batches × {batch // (g * n)}, {c['steps']} steps, gloo on the CPU with "
        f"{result['threads_per_rank']} thread(s) a process, {len(lab)} rounds interleaved. Each timing is a whole "
        "run seen from the parent, spawning the processes and tearing them down included; the bare loop is the "
        "textbook DDP accumulation loop (`no_sync` on all but the last micro-batch) on the same model, data, "
        "shares and validation schedule.",
        "",
        "| | Samples/s (median) | Min | Max |",
        "|---|---:|---:|---:|",
        f"| Lab | {statistics.median(lab):.1f} | {min(lab):.1f} | {max(lab):.1f} |",
        f"| Bare DDP loop | {statistics.median(bare):.1f} | {min(bare):.1f} | {max(bare):.1f} |",
        "",
        f"Lab / bare: {ratio:.3f} (median of paired ratios {speed['median_paired_ratio']:.3f}); the aim is at "
        f"least {DATA_PARALLEL_AIM:g}, which this {'meets' if ratio >= DATA_PARALLEL_AIM else 'misses'}. Both "
        f"loops' warm-up loss curves agree to {speed['warmup_loss_max_abs_difference']:.1e}.",
        "",
        f"Gradient all-reduces over the {c['steps']} steps, counted by the lab on process 0:",
        "",
        "| sync | All-reduce calls | Bytes sent | Communication s | Compute s | Gradient-equivalence error |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for sync in ("every_micro", "no_sync"):
        row = comm[sync]
        lines.append(
            f"| `{sync}` | {row['allreduce_calls']} | {row['allreduce_bytes']:,} | "
            f"{row['communication_seconds']:.3f} | {row['compute_seconds']:.3f} | "
            f"{row['grad_equivalence_error']:.1e} |"
        )
    lines += [
        "",
        f"`no_sync` makes {comm['calls_ratio']:.1f} times fewer all-reduce calls and sends {comm['bytes_ratio']:.1f} "
        f"times fewer bytes (N = {n} expected), for the same gradient.",
        "",
    ]
    return lines


def gpu_check_section(check: dict[str, Any]) -> list[str]:
    """bench/gpu_check.py's CPU mode: the fp32 equivalence checks and activation memory against N."""
    sections = check["sections"]
    lines = [
        "## GPU check, CPU mode",
        "",
        f"`bench/gpu_check.py --cpu` on {check['device']} (size tiny, a few steps; on a GPU machine run it without "
        "`--cpu`, see the README). Gradient-equivalence error of window 1, accumulated at N against the full "
        f"batch, fp32 (bound {check['fp32_bound']:.0e}):",
        "",
        "| Task | Norm | N | Error | Within bound |",
        "|---|---|---:|---:|---|",
    ]
    for r in sections["equivalence"]["rows"]:
        if r["precision"] == "fp32" and r["bound"] is not None:
            error = "-" if r["error"] is None else f"{r['error']:.1e}"
            lines.append(f"| {r['task']} | {r['norm']} | {r['accumulation_steps']} | {error} | {r['passed']} |")
    lines += ["", "| Size | N | Peak activation bytes | Ratio to N = 1 | Ideal 1/N |", "|---|---:|---:|---:|---:|"]
    for r in sections["memory"]["rows"]:
        lines.append(
            f"| {r['size']} | {r['accumulation_steps']} | {r['peak_activation_bytes']:,} | {r['ratio']:.3f} | "
            f"{r['ideal']:.3f} |"
        )
    lines += [
        "",
        "Lab against a hand-written accumulation loop (`bench/bare_loop.py`) on the same guides-lm model, data "
        "and windows, steady tokens/s from the second step on (the lab's first step also computes the full-batch "
        "reference gradient and measures activation memory, on purpose), rounds interleaved:",
        "",
        "| Size | Precision | Lab tokens/s | Bare tokens/s | Lab / bare | Aim |",
        "|---|---|---:|---:|---:|---:|",
    ]
    for r in sections["bare_loop"]["rows"]:
        ratio = "-" if r["ratio"] is None else f"{r['ratio']:.3f}"
        lines.append(
            f"| {r['size']} | {r['precision']} | {statistics.median(r['lab_tokens_per_second']):,.0f} | "
            f"{statistics.median(r['bare_tokens_per_second']):,.0f} | {ratio} | {r['aim']:g} |"
        )
    failed = [name for name, section in sections.items() if section["error"]]
    lines += ["", f"Sections that failed: {', '.join(failed) or 'none'}.", ""]
    return lines


LIGHTHOUSE_TITLE = "## Pages on a phone: Lighthouse"
# The aims for every page in every language (issue "First contact in two minutes").
LIGHTHOUSE_AIMS = {"performance": 95, "accessibility": 100, "best-practices": 100, "seo": 100}
# A certificate's page carries the learner's name, so it asks search engines not to index it
# (templates/certificates/certificate.html); Lighthouse's SEO score counts that against it.
UNINDEXED_PAGES = {"certificate": "is-crawlable"}


def lighthouse_section(result: dict[str, Any]) -> list[str]:
    s, machine = result["settings"], result["machine"]
    lines = [
        LIGHTHOUSE_TITLE,
        "",
        f"`bench/lighthouse.py`: Lighthouse {result['lighthouse']} (npm, pinned in `bench/package.json`) with "
        f"{result['chromium']}, the browser the tests use, on the site under gunicorn with production settings "
        "(DEBUG off, pages compressed, cached public pages). Lighthouse's mobile preset: a phone's screen, the "
        "CPU slowed 4 times and a slow 4G network, both simulated from what this machine measured. "
        f"Runs per page and language: {s['runs']}, one after the other; each score is the median. On a shared "
        "2-core machine the performance score moves by several points from run to run (the simulated CPU is "
        "this one, slowed); the other three do not depend on speed. Measured "
        f"{machine['date']} on {machine['cores']} cores, whose 5-minute load average was "
        f"{machine['load_average_5min'][0]:.1f} at the start and {machine['load_average_5min'][1]:.1f} at the end.",
        "",
        *_site_state(result.get("site")),
        "| Page | Language | Performance | Accessibility | Best practices | SEO | FCP ms | LCP ms | TBT ms "
        "| CLS | DOM elements |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    missed, failing = [], {}
    for row in result["pages"]:
        scores, m = row["scores"], row["metrics"]
        lines.append(
            f"| {row['page']} (`{row['path']}`) | {row['language']} | {scores['performance']:g} | "
            f"{scores['accessibility']:g} | {scores['best-practices']:g} | {scores['seo']:g} | "
            f"{m['FCP ms']:.0f} | {m['LCP ms']:.0f} | {m['TBT ms']:.0f} | {m['CLS']:.3f} | {m['DOM elements']:.0f} |"
        )
        missed += _missed_aims(row)
        for audit, title in row["failing"].items():
            failing.setdefault(f"{title} (`{audit}`)", []).append(f"{row['page']} {row['language']}")
    aims = ", ".join(f"{name} ≥ {aim}" for name, aim in LIGHTHOUSE_AIMS.items())
    lowest = min(result["pages"], key=lambda row: row["scores"]["performance"], default=None)
    lines += [
        "",
        f"Aims, for every page in every language: {aims}, except that a "
        "certificate's page is kept out of search engines on purpose (`noindex`: it carries the learner's "
        "name), the one SEO audit it may fail. "
        + ("Every page meets them." if not missed else "Short of them: " + "; ".join(missed) + "."),
        "",
    ]
    if lowest:
        m = lowest["metrics"]
        lines += [
            f"Lowest performance: {lowest['page']} {lowest['language']}, {lowest['scores']['performance']:g} "
            f"(LCP {m['LCP ms']:.0f} ms, TBT {m['TBT ms']:.0f} ms, {m['DOM elements']:.0f} DOM elements).",
            "",
        ]
    if failing:
        lines += ["Audits that did not pass:", ""]
        lines += [f"- {title}: {', '.join(pages)}" for title, pages in failing.items()]
        lines.append("")
    return lines


def _missed_aims(row: dict[str, Any]) -> list[str]:
    aims = dict(LIGHTHOUSE_AIMS)
    allowed = UNINDEXED_PAGES.get(row["page"])
    if allowed and set(row["failing"]) <= {allowed}:
        aims.pop("seo")
    return [f"{row['page']} {row['language']} {name} {row['scores'][name]:g}" for name, aim in aims.items()
            if row["scores"][name] < aim]  # fmt: skip


def _site_state(site: dict[str, Any] | None) -> list[str]:
    """What the measured site held: the pages are only those learners get if the narration and the
    reference runs are there (the copy is of `make run`'s STATE_DIR)."""
    if not site:
        return []
    narration = site["narration"]
    return [
        f"The site measured is a copy of the one `make run` serves (`{site['state_from']}`): the real content, "
        f"narration recorded for {narration['recorded']} of {narration['pages']} guide pages, and "
        f"{site['reference_runs']} trained reference runs on the run and compare pages.",
        "",
    ]


def workshop_section(result: dict[str, Any]) -> list[str]:
    """bench/workshop.py's short version; the full runs and the capacity plan are in docs/SCALING.md."""
    command = "bench/workshop.py " + " ".join(FULL["workshop"][1])
    lines = markdown_section(result, command)
    return [*lines, "The full run (100 learners, 15 minutes, SQLite then PostgreSQL) and the capacity plan: "
            "[SCALING.md](SCALING.md).", ""]  # fmt: skip


def replace_section(text: str, title: str, section: list[str]) -> str:
    """`text` with the section headed `title` (up to the next `## ` heading) replaced, or added at the end;
    the file keeps one newline at its end."""
    lines = text.rstrip("\n").split("\n")
    if title not in lines:
        return "\n".join([*lines, "", *section]).rstrip("\n") + "\n"
    start = lines.index(title)
    end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith("## ")), len(lines))
    return "\n".join([*lines[:start], *section, *lines[end:]]).rstrip("\n") + "\n"  # one newline at the end


def one_section_only(out: Path, name: str, title: str, section: Callable[[dict[str, Any]], list[str]]) -> int:
    """Runs one benchmark with its full settings and replaces only its section of `out`."""
    script, options = FULL[name]
    with tempfile.TemporaryDirectory(prefix="gac-bench-report-") as folder:
        result, _seconds = run_benchmark(name, script, options, Path(folder))
    out.write_text(replace_section(out.read_text(), title, section(result)))
    print(f"wrote the section {title.removeprefix('## ')!r} of {out}")
    return 0


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.lighthouse_only:
        return one_section_only(args.out, "lighthouse", LIGHTHOUSE_TITLE, lighthouse_section)
    if args.signed_in_only:
        return one_section_only(args.out, "load_signed_in", SIGNED_IN_TITLE, signed_in_section)
    if args.trainer_only:
        return trainers_only(args.out)
    if args.workshop_only:
        return one_section_only(args.out, "workshop", WORKSHOP_TITLE, workshop_section)
    settings = QUICK if args.quick else FULL
    results, seconds = {}, {}
    with tempfile.TemporaryDirectory(prefix="gac-bench-report-") as folder:
        for name, (script, options) in settings.items():
            results[name], seconds[name] = run_benchmark(name, script, options, Path(folder))
    commands = "\n".join(
        f"    .venv/bin/python bench/{script}.py {' '.join(options)}" for script, options in settings.values()
    )
    lines = [
        "# Performance",
        "",
        "Written by `make bench` (`bin/bench`, which runs `bench/report.py`); do not edit by hand. "
        f"It ran these, one after the other, in {sum(seconds.values()) / 60:.1f} minutes:",
        "",
        commands,
        "",
        *machine_section(machine_description(), software(), results["trainer"]["torch"]),
        *load_section(results["load"], results["load_returning"]),
        *signed_in_section(results["load_signed_in"]),
        *quiz_section(results["quiz_roundtrip"]),
        *lab_section(results["lab_latency"]),
        *trainers_section([results[name] for name in TRAINER_RUNS]),
        *data_parallel_section(results["data_parallel"]),
        *gpu_check_section(results["gpu_check"]),
        *lighthouse_section(results["lighthouse"]),
        *workshop_section(results["workshop"]),
    ]
    if args.quick:
        lines.insert(2, "**Quick settings (`--quick`): these figures only show that the benchmarks run.**\n")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text("\n".join(lines))
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
