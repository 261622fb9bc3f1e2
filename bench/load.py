"""Load test: the site under gunicorn with production settings, driven by wrk.

Starts a throw-away copy of the site (bench/harness.py: DEBUG off, its own SQLite, Redis, static
files and signing key, a real certificate, gunicorn with 2 sync workers, loopback only) and
drives it with wrk for a fixed time at a fixed concurrency against the public pages (a guide, the
home page, the guide list, a quiz's landing page, a lab preset and a certificate's verification
page) and the minimal view `/ping` (no database, no template), all served by the same server in
the same run. The targets are interleaved and the rounds repeated,
each round starting with a different target, because the machine is shared and noisy. Each
page's throughput is divided by the minimal view's in the same round; the median over rounds
is reported. Every page's server CPU time per request is reported too: the CPU time of the
gunicorn processes (from /proc) over the load, divided by the requests served.

Requests come without cookies, as from first-time visitors, or with --returning carry a CSRF
cookie, as every later page of a visit does, or with --signed-in the session of the seeded learner.
A signed-in learner's pages are their own (rendered for them, never from the page cache): that run
covers every page a learner has (the dashboard, the course, a guide, the quizzes, the labs, a
certificate), without the minimal view, and each page is judged by what it costs, in requests per
second, server CPU per request and SQL queries (counted in this process with Django's test client
on the copy's database, on a first view with the cache empty and on a view once it is filled).
Exits 1 when any request failed or answered other than 2xx.

    .venv/bin/python bench/load.py [--duration 10] [--connections 8] [--rounds 5] [--returning | --signed-in]
        [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(1, str(Path(__file__).resolve().parent.parent))  # the site: --signed-in makes a session in its database

from harness import Site, cpu_seconds, http_get, machine_description, running_site

LUA = Path(__file__).resolve().parent / "wrk_report.lua"
BASELINE = "minimal view"
SOCKET_ERRORS = ("connect_errors", "read_errors", "write_errors", "timeout_errors")
RETURNING_COOKIE = "csrftoken=returningVisitor0123456789abcdef"  # a well-formed CSRF secret (32 letters, digits)
LEARNER = "bench-learner"  # bench/seed.py's
VISITORS = {
    "first-time": "first-time visitors (no cookies)",
    "returning": "returning visitors (CSRF cookie sent)",
    "signed-in": "a signed-in learner (session cookie sent)",
}


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--duration", type=float, default=10, help="seconds of load per target and round")
    parser.add_argument("--connections", type=int, default=8, help="concurrent connections (wrk -c)")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--workers", type=int, default=2, help="gunicorn sync workers")
    visitors = parser.add_mutually_exclusive_group()
    visitors.add_argument("--returning", action="store_true", help="send a CSRF cookie, as a returning visitor")
    visitors.add_argument("--signed-in", action="store_true", help="send the seeded learner's session cookie")
    parser.add_argument("--json", type=Path, default=None, help="also write the results to this file")
    return parser.parse_args(argv)


def targets(site: Site, *, signed_in: bool = False) -> dict[str, str]:
    seed = site.seed
    public = {
        "guide page": seed["guide_path"],
        "home page": seed["home_path"],
        "guide list": seed["guide_index_path"],
        "quiz landing": seed["quiz_path"],
        "preset page": seed["preset_path"],
        "certificate page": seed["certificate_path"],
    }
    if not signed_in:
        return {BASELINE: "/ping", **public}
    # Every page a signed-in learner has, the same pages rendered for them and the ones only a session reaches.
    return {
        "dashboard": seed["dashboard_path"],
        "course page": seed["course_path"],
        **public,
        "quiz in progress": seed["attempt_path"],
        "lab index": seed["lab_index_path"],
        "run page": seed["run_path"],
        "compare page": seed["own_compare_path"],
    }


def learner_cookie(site: Site) -> str:
    """A session of the seeded learner, made in the copy's database as signing in would."""
    site.use_database()
    from django.contrib.auth import get_user_model
    from django.test import Client

    client = Client()
    client.force_login(get_user_model().objects.get(username=LEARNER))
    cookie = f"{RETURNING_COOKIE}; sessionid={client.cookies['sessionid'].value}"
    if b'action="/en/accounts/logout/"' not in http_get(site.url, "/en/", {"Cookie": cookie})[2]:
        raise SystemExit("the site did not take the learner's session: the pages would not be theirs")
    return cookie


def queries_per_page(site: Site, pages: dict[str, str]) -> dict[str, dict[str, int]]:
    """The SQL queries of each page for the seeded learner: on a first view, with the cache empty
    (every fragment rendered), and on the next view (what the load measures), counted by Django's
    test client in this process on the copy's database (site.use_database(), as learner_cookie)."""
    from django.contrib.auth import get_user_model
    from django.core.cache import cache
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    client = Client(HTTP_HOST=site.url.removeprefix("http://").split(":")[0])
    client.force_login(get_user_model().objects.get(username=LEARNER))
    client.cookies["csrftoken"] = RETURNING_COOKIE.split("=", 1)[1]
    counts = {}
    for name, path in pages.items():
        cache.clear()  # the copy's own Redis: pages, fragments and versions all made again
        views = []
        for _view in ("first", "cached"):
            with CaptureQueriesContext(connection) as queries:
                status = client.get(path).status_code
            if status != 200:
                raise SystemExit(f"{name} {path} answered {status} to the test client")
            views.append(len(queries))
        counts[name] = {"first_view": views[0], "cached": views[1]}
    return counts


def check_pages(site: Site, pages: dict[str, str], cookie: str = "") -> None:
    """Every target must answer 200 itself (a redirect would measure something else)."""
    for name, path in pages.items():
        status, _headers, body = http_get(site.url, path, {"Cookie": cookie} if cookie else None)
        if status != 200:
            raise SystemExit(f"{name} {path} answered {status} before the load started:\n{body[:500]!r}")


def wrk(url: str, *, duration: float, connections: int, cookie: str = "") -> dict[str, Any]:
    """One wrk run (one thread: the server needs the cores) and its summary from wrk_report.lua."""
    command = ["wrk", "-t1", f"-c{connections}", f"-d{max(1, round(duration))}s", "--timeout", "10s", "-s", str(LUA)]
    if cookie:
        command += ["-H", f"Cookie: {cookie}"]
    result = subprocess.run([*command, url], capture_output=True, text=True, timeout=duration + 60)
    line = next((x for x in result.stdout.splitlines() if x.startswith("WRK_JSON ")), None)
    if result.returncode != 0 or line is None:
        raise RuntimeError(f"wrk failed ({result.returncode}):\n{result.stdout}\n{result.stderr}")
    summary = json.loads(line.removeprefix("WRK_JSON "))
    summary["rps"] = summary["requests"] / (summary["duration_us"] / 1e6)
    return summary


def measured_wrk(site: Site, path: str, **options: Any) -> dict[str, Any]:
    """wrk, plus the server's CPU time per request (gunicorn master and workers): a figure far
    less disturbed than throughput by other programs on a shared machine."""
    before = cpu_seconds(site.web_pid)
    run = wrk(site.url + path, **options)
    run["server_cpu_ms"] = (cpu_seconds(site.web_pid) - before) * 1000 / max(1, run["requests"])
    return run


def measure(site: Site, pages: dict[str, str], *, rounds: int, **options: Any) -> dict[str, list[dict[str, Any]]]:
    """`options` go to wrk(): duration, connections, cookie."""
    names = list(pages)
    for name in names:  # warm-up: workers loaded, caches filled; not counted
        wrk(site.url + pages[name], **{**options, "duration": 1})
    runs: dict[str, list[dict[str, Any]]] = {name: [] for name in names}
    for round_number in range(rounds):
        shift = round_number % len(names)
        for name in names[shift:] + names[:shift]:
            run = measured_wrk(site, pages[name], **options)
            runs[name].append(run)
            print(f"  round {round_number + 1}/{rounds}  {name:<17} {run['rps']:8.1f} req/s", flush=True)
    return runs


def summarize(runs: dict[str, list[dict[str, Any]]]) -> dict[str, dict[str, Any]]:
    """Medians over rounds; the ratios to the minimal view only in a run that has it (not --signed-in)."""
    baseline = runs.get(BASELINE)
    pages = {}
    for name, page_runs in runs.items():
        requests = sum(run["requests"] for run in page_runs)
        pages[name] = {
            "rps": statistics.median(run["rps"] for run in page_runs),
            "p50_ms": statistics.median(run["p50_us"] for run in page_runs) / 1000,
            "p99_ms": statistics.median(run["p99_us"] for run in page_runs) / 1000,
            "server_cpu_ms": statistics.median(run["server_cpu_ms"] for run in page_runs),
            "requests": requests,
            "non2xx": sum(run["non2xx"] for run in page_runs),
            "socket_errors": sum(run[key] for run in page_runs for key in SOCKET_ERRORS),
            "bytes_per_response": round(sum(run["bytes"] for run in page_runs) / max(1, requests)),
        }
        if baseline is not None:
            pairs = list(zip(page_runs, baseline, strict=True))
            pages[name]["ratio_to_minimal"] = statistics.median(run["rps"] / base["rps"] for run, base in pairs)
            pages[name]["cpu_ratio_to_minimal"] = statistics.median(
                base["server_cpu_ms"] / max(run["server_cpu_ms"], 1e-6) for run, base in pairs
            )
    return pages


def print_table(pages: dict[str, dict[str, Any]], paths: dict[str, str]) -> None:
    ratios = all("ratio_to_minimal" in page for page in pages.values())
    queries = all("queries" in page for page in pages.values())
    print(
        f"\n{'page':<17} {'req/s':>8} {'p50 ms':>7} {'p99 ms':>7} {'non-2xx':>7} {'sockerr':>7} {'cpu ms':>7}"
        + (f" {'ratio':>6} {'cpu ratio':>9}" if ratios else "")
        + (f" {'SQL first/cached':>16}" if queries else "")
        + "  path"
    )
    for name, page in pages.items():
        line = (
            f"{name:<17} {page['rps']:8.1f} {page['p50_ms']:7.2f} {page['p99_ms']:7.2f} {page['non2xx']:7d} "
            f"{page['socket_errors']:7d} {page['server_cpu_ms']:7.3f}"
        )
        if ratios:
            line += f" {page['ratio_to_minimal']:6.2f} {page['cpu_ratio_to_minimal']:9.2f}"
        if queries:
            line += f" {page['queries']['first_view']:>9d}/{page['queries']['cached']:<6d}"
        print(f"{line}  {paths[name]}")
    print(
        "Medians over rounds. cpu ms: server CPU time per request (gunicorn workers)."
        + (
            " ratio: page req/s / minimal view req/s in the same round; cpu ratio: minimal view's cpu ms / page's."
            if ratios
            else ""
        )
        + (" SQL: queries on a first view (cache empty) / once cached." if queries else "")
    )


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if shutil.which("wrk") is None:
        print("wrk is not installed (Debian package wrk; bin/setup --test installs it)", file=sys.stderr)
        return 2
    visitors = "signed-in" if args.signed_in else "returning" if args.returning else "first-time"
    load_before = os.getloadavg()[0]
    with running_site(workers=args.workers) as site:
        cookie = learner_cookie(site) if args.signed_in else RETURNING_COOKIE if args.returning else ""
        paths = targets(site, signed_in=args.signed_in)
        check_pages(site, paths, cookie)
        queries = queries_per_page(site, paths) if args.signed_in else {}
        print(
            f"Load: {args.connections} connections, {args.duration:g} s per target, {args.rounds} rounds, "
            f"{VISITORS[visitors]}, gunicorn {args.workers} sync workers at {site.url}",
            flush=True,
        )
        runs = measure(
            site, paths, rounds=args.rounds, duration=args.duration, connections=args.connections, cookie=cookie
        )
    pages = summarize(runs)
    for name, counts in queries.items():
        pages[name]["queries"] = counts
    print_table(pages, paths)
    results = {
        "machine": machine_description(),
        "settings": {
            "duration_s": args.duration,
            "connections": args.connections,
            "rounds": args.rounds,
            "gunicorn_workers": args.workers,
            "wrk_threads": 1,
            "visitors": visitors,
        },
        # The machine's 1-minute load average as the run started and ended: other work shares its cores.
        "load_average_1min": [load_before, os.getloadavg()[0]],
        "paths": paths,
        "pages": pages,
        "runs": runs,
    }
    if args.json:
        args.json.write_text(json.dumps(results, indent=2))
    failed = sum(page["non2xx"] + page["socket_errors"] for page in pages.values())
    if failed:
        print(f"FAILED: {failed} requests failed or answered other than 2xx", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
