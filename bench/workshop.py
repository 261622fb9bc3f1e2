"""The workshop benchmark: a class of learners on the site at once, driven by Locust.

Starts a throw-away copy of the site as `make run` serves it (bench/harness.py: production
settings, gunicorn with WEB_CONCURRENCY sync workers, one Celery worker with beat, its own Redis,
SQLite or a throwaway PostgreSQL cluster), with the site's own rate limits and the one setting a
workshop organiser adds (CLASSROOM_NETWORKS=127.0.0.0/8: every learner comes from one address).
It records the English spoken summaries (so learners fetch narration ranges), then runs
bench/workshop_locustfile.py with `locust --headless` for the given time, watching the machine
meanwhile: CPU per process group (web, worker, Redis, PostgreSQL, Locust itself), the load
average, the queue length, and the wait each queued run's page promised against when it ended.
When Locust stops it waits for every accepted lab run to end, then checks from the database that
none was lost or stuck, and reports per request type the p95, and the lab queue's wait (p50, p95).
Exits 1 on a server error, a lost or stuck run, a 429 without Retry-After, or "database is locked".

    .venv/bin/python bench/workshop.py                                # the full run: 100 learners, 15 min
    .venv/bin/python bench/workshop.py --learners 10 --duration 90 --think-scale 0.1   # short
    .venv/bin/python bench/workshop.py --postgres                     # the same on PostgreSQL
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(1, str(Path(__file__).resolve().parent.parent))

from harness import PYTHON, ROOT, cpu_seconds, free_port, machine_description, running_site, wait_until

LOCUSTFILE = Path(__file__).resolve().parent / "workshop_locustfile.py"
CLASSROOM = {"CLASSROOM_NETWORKS": "127.0.0.0/8"}  # what an organiser sets: the learners' one address
PRIMARY_TYPES = ("guide page", "quiz answer (htmx)", "run poll (htmx)", "compare poll (htmx)", "dashboard")


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--learners", type=int, default=100)
    parser.add_argument("--duration", type=float, default=900, help="seconds of load (Locust's run time)")
    parser.add_argument("--spawn-rate", type=float, default=None, help="learners arriving per second (all in 2 min)")
    parser.add_argument("--think-scale", type=float, default=1.0, help="think times × this (1: a workshop's pace)")
    parser.add_argument("--web-workers", type=int, default=3, help="gunicorn workers (the run command's default)")
    parser.add_argument("--postgres", action="store_true", help="a throwaway PostgreSQL cluster instead of SQLite")
    parser.add_argument("--no-narration", action="store_true", help="do not record the English summaries first")
    parser.add_argument("--drain", type=float, default=900, help="seconds to wait after the load for runs to end")
    parser.add_argument("--json", type=Path, default=None, help="also write the results to this file")
    return parser.parse_args(argv)


# ---- PostgreSQL, as bin/test starts it -------------------------------------------------------------


@contextmanager
def postgres_cluster():
    """A throwaway cluster (Debian's package) on a free port; its URL. Durable settings (fsync on):
    the figures are the ones a real server would give."""
    found = sorted(Path("/usr/lib/postgresql").glob("*/bin/initdb"))
    if not found:
        raise SystemExit("PostgreSQL is not installed (bin/setup --test installs Debian's postgresql)")
    bin_dir = found[-1].parent
    folder = Path(tempfile.mkdtemp(prefix="gac-workshop-pg-"))
    as_postgres = ["runuser", "-u", "postgres", "--"] if os.getuid() == 0 else []
    if as_postgres:
        shutil.chown(folder, "postgres")
    port = free_port()
    run = lambda *command: subprocess.run([*as_postgres, *command], check=True, capture_output=True)  # noqa: E731
    try:
        run(str(bin_dir / "initdb"), "-D", f"{folder}/data", "-U", "postgres", "--auth=trust", "-E", "UTF8")
        options = f"-p {port} -k {folder} -c listen_addresses=127.0.0.1 -c max_connections=200"
        run(
            str(bin_dir / "pg_ctl"),
            "-D",
            f"{folder}/data",
            "-l",
            f"{folder}/server.log",
            "-w",
            "-s",
            "start",
            "-o",
            options,
        )
        run(
            str(bin_dir / "psql"), "-h", "127.0.0.1", "-p", str(port), "-U", "postgres", "-v", "ON_ERROR_STOP=1", "-q",
            "-c", "CREATE ROLE course LOGIN CREATEDB PASSWORD 'course'", "-c", "CREATE DATABASE course OWNER course",
        )  # fmt: skip
        version = subprocess.run([str(bin_dir / "postgres"), "--version"], capture_output=True, text=True).stdout
        postmaster = int((folder / "data" / "postmaster.pid").read_text().split()[0])  # its backends: its children
        yield f"postgres://course:course@127.0.0.1:{port}/course", version.strip(), postmaster
    finally:
        subprocess.run([*as_postgres, str(bin_dir / "pg_ctl"), "-D", f"{folder}/data", "-m", "fast", "stop"],
                       capture_output=True)  # fmt: skip
        shutil.rmtree(folder, ignore_errors=True)


# ---- before the load -------------------------------------------------------------------------------


def record_summaries() -> int:
    """The English spoken summaries (a few seconds of espeak-ng each), as the run command records
    them first: the guide pages then carry a player whose byte ranges the learners fetch."""
    from course import narration
    from course.models import GuidePage
    from course.services import narration_needed, narration_recorded, narration_synthesize

    if not narration.tools_available():
        return 0
    recorded = 0
    for page in GuidePage.objects.filter(language="en", guide__is_published=True).select_related("guide"):
        needed = narration_needed(page)
        if "summary" in needed:
            narration_recorded(page, narration_synthesize(page, "summary", needed["summary"]))
            recorded += 1
    return recorded


# ---- while it runs ---------------------------------------------------------------------------------


class Watcher(threading.Thread):
    """Every few seconds: each process group's CPU, the load average, the queue, and what a queued
    run's page promises (its position and estimate), to hold against when the run really ended."""

    def __init__(self, groups: dict[str, int], interval: float = 5) -> None:
        super().__init__(daemon=True)
        self.groups, self.interval = groups, interval
        self.stop = threading.Event()
        self.samples: list[dict[str, Any]] = []
        self.promises: list[dict[str, Any]] = []

    def run(self) -> None:
        from django.db import connection

        from labs.models import LabRun
        from labs.selectors import run_queue

        before = {name: group_cpu_seconds(pid) for name, pid in self.groups.items()}
        started = last = time.monotonic()
        while not self.stop.wait(self.interval):
            now = time.monotonic()
            cpu = {name: group_cpu_seconds(pid) for name, pid in self.groups.items()}
            queued = LabRun.objects.filter(status=LabRun.Status.QUEUED, reference=False)
            sample = {
                "t": round(now - started, 1),
                "load_1min": os.getloadavg()[0],
                "queued": queued.count(),
                "running": LabRun.objects.filter(status=LabRun.Status.RUNNING).count(),
                "cpu_cores": {name: round((cpu[name] - before[name]) / (now - last), 3) for name in cpu},
            }
            self.samples.append(sample)
            before, last = cpu, now
            newest = queued.order_by("-created_at").first()  # the run a learner just submitted
            if newest is not None:
                block = run_queue(newest)
                if block["position"] is not None:
                    self.promises.append({"run": newest.pk, "at": time.time(), **block})
        connection.close()


# ---- after it --------------------------------------------------------------------------------------


def drain(timeout: float) -> float:
    """Waits until no learner's run is queued or running; the seconds it took."""
    from labs.models import LabRun

    started = time.monotonic()
    active = LabRun.objects.filter(status__in=[LabRun.Status.QUEUED, LabRun.Status.RUNNING], reference=False)
    while active.exists() and time.monotonic() - started < timeout:
        time.sleep(2)
    return time.monotonic() - started


def quantile(values: list[float], q: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]


def runs_outcome(accepted: list[dict[str, Any]], promises: list[dict[str, Any]]) -> dict[str, Any]:
    """Every accepted run from the database: ended how, its queue wait, its time on the worker."""
    from labs.models import LabRun

    ids = {run["id"] for run in accepted}
    rows = {run.pk: run for run in LabRun.objects.filter(pk__in=ids)}
    statuses: dict[str, int] = {}
    for run in rows.values():
        statuses[run.status] = statuses.get(run.status, 0) + 1
    # Through the queue: every run a worker claimed, whether it trained or found its twin finished meanwhile.
    queued = [r for r in rows.values() if r.started_at]
    trained = [r for r in queued if r.reused_from_id is None and r.finished_at]
    waits = [(r.started_at - r.created_at).total_seconds() for r in queued]
    per_learner: dict[str, list[float]] = {}
    for run in accepted:
        row = rows.get(run["id"])
        if row is not None and row.started_at:
            per_learner.setdefault(run["learner"], []).append((row.started_at - row.created_at).total_seconds())
    durations: dict[str, list[float]] = {}
    for r in trained:
        if r.status == LabRun.Status.SUCCEEDED:
            kind = r.preset or f"api: {r.config['task']} {r.config['steps']} steps"
            durations.setdefault(kind, []).append((r.finished_at - r.started_at).total_seconds())
    twins = [(r.finished_at - r.started_at).total_seconds() for r in queued if r.reused_from_id and r.finished_at]
    if twins:
        durations["a twin finished while it waited (no training)"] = twins
    failed = [r for r in rows.values() if r.status == LabRun.Status.FAILED]
    return {
        "accepted": len(ids),
        "found": len(rows),
        "lost": sorted(ids - set(rows)),
        "stuck": sorted(pk for pk, r in rows.items() if r.status in (LabRun.Status.QUEUED, LabRun.Status.RUNNING)),
        "failed_without_reason": sorted(r.pk for r in failed if not r.error),
        "failed_reasons": sorted({r.error[:200] for r in failed if r.error}),
        "statuses": statuses,
        "reused": sum(1 for r in rows.values() if r.reused_from_id),
        "trained": len(trained),
        "through_queue": len(queued),
        "rows": [  # each run, for later analysis (docs/SCALING.md's simulation is driven by such figures)
            {
                "id": r.pk,
                "preset": r.preset,
                "task": r.config.get("task"),
                "steps": r.config.get("steps"),
                "status": r.status,
                "reused": bool(r.reused_from_id),
                "created": r.created_at.timestamp(),
                "started": r.started_at.timestamp() if r.started_at else None,
                "finished": r.finished_at.timestamp() if r.finished_at else None,
            }
            for r in sorted(rows.values(), key=lambda r: r.pk)
        ],
        "queue_wait_s": {"p50": quantile(waits, 0.5), "p95": quantile(waits, 0.95), "max": max(waits, default=None)},
        "learner_median_wait_s": {
            "p50": quantile([statistics.median(w) for w in per_learner.values()], 0.5),
            "p95": quantile([statistics.median(w) for w in per_learner.values()], 0.95),
        },
        "worker_seconds": {
            kind: {"runs": len(s), "median": statistics.median(s), "p95": quantile(s, 0.95)}
            for kind, s in sorted(durations.items())
        },
        "estimates": estimates_held(promises, rows),
    }


def estimates_held(promises: list[dict[str, Any]], rows: dict[int, Any]) -> dict[str, Any]:
    """What the run page said ("It should be done in about N minutes") against when the run ended."""
    pairs = []
    for promise in promises:
        row = rows.get(promise["run"])
        if row is None or row.finished_at is None or promise["estimate_seconds"] is None:
            continue
        actual = row.finished_at.timestamp() - promise["at"]
        pairs.append((promise["estimate_seconds"], actual, promise["position"]))
    ratios = [actual / max(estimate, 1) for estimate, actual, _position in pairs]
    return {
        "promises": len(pairs),
        "actual_over_estimate_p50": quantile(ratios, 0.5),
        "actual_over_estimate_p95": quantile(ratios, 0.95),
        "positions_max": max((p for *_x, p in pairs), default=None),
        "examples": [
            {"estimate_s": round(e), "actual_s": round(a), "position": p}
            for e, a, p in pairs[:: max(1, len(pairs) // 8)]
        ],
    }


def log_problems(state_dir: Path) -> dict[str, int]:
    """What the server's and the worker's logs say went wrong."""
    found = {"database is locked": 0, "Traceback": 0}
    for log in ("gunicorn.log", "worker.log"):
        path = state_dir / log
        text = path.read_text(errors="replace") if path.exists() else ""
        for needle in found:
            found[needle] += text.count(needle)
    return found


def group_cpu_seconds(pid: int) -> float:
    """CPU time of a process, its live children and the children it has reaped: a gunicorn worker or
    a Celery pool child that is replaced (CELERY_WORKER_MAX_TASKS_PER_CHILD) keeps counting."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return cpu_seconds(pid)
    return cpu_seconds(pid) + (int(fields[13]) + int(fields[14])) / os.sysconf("SC_CLK_TCK")


def saturation(samples: list[dict[str, Any]], cores: int) -> dict[str, Any]:
    """Mean CPU per process group (in cores) over the load. A sample in which a group's CPU went down
    (a child replaced, in runs measured before group_cpu_seconds counted reaped children) is left out."""
    loaded = [s for s in samples if s["cpu_cores"]]
    if not loaded:
        return {}
    groups = loaded[0]["cpu_cores"].keys()
    mean = {
        name: statistics.mean([s["cpu_cores"][name] for s in loaded if s["cpu_cores"][name] >= 0] or [0])
        for name in groups
    }
    return {
        "mean_cores": {name: round(value, 2) for name, value in mean.items()},
        "machine_cores": cores,
        "load_1min": {
            "mean": round(statistics.mean(s["load_1min"] for s in loaded), 2),
            "max": round(max(s["load_1min"] for s in loaded), 2),
        },
        "queued_max": max(s["queued"] for s in loaded),
    }


def run_locust(site_url: str, args: argparse.Namespace, out: Path, log: Path) -> subprocess.Popen:
    spawn = args.spawn_rate or max(0.2, args.learners / 120)
    command = [PYTHON, "-m", "locust", "-f", str(LOCUSTFILE), "--headless", "--host", site_url]
    command += ["-u", str(args.learners), "-r", f"{spawn:g}", "-t", f"{max(1, round(args.duration))}s"]
    command += ["--stop-timeout", "5", "--only-summary", "--loglevel", "WARNING"]
    env = {**os.environ, "WORKSHOP_OUT": str(out), "WORKSHOP_THINK_SCALE": f"{args.think_scale:g}"}
    return subprocess.Popen(command, cwd=ROOT, env=env, stdout=log.open("wb"), stderr=subprocess.STDOUT)


def measure(
    args: argparse.Namespace, database_url: str = "", database: str = "SQLite", postmaster: int = 0
) -> dict[str, Any]:
    extra = {**CLASSROOM, **({"DATABASE_URL": database_url} if database_url else {})}
    with running_site(workers=args.web_workers, extra_env=extra, limits={}) as site:
        site.use_database()
        worker = site.start_worker(beat=True)
        narrated = 0 if args.no_narration else record_summaries()
        groups = {"web": site.web_pid, "worker": worker.pid, "redis": site.processes.started[0][0].pid}
        if postmaster:
            groups["postgres"] = postmaster
        out, locust_log = site.state_dir / "locust.json", site.state_dir / "locust.log"
        load_before = os.getloadavg()
        started = time.time()
        locust = run_locust(site.url, args, out, locust_log)
        groups["locust"] = locust.pid
        watcher = Watcher(groups)
        watcher.start()
        try:
            wait_until(lambda: locust.poll() is not None, args.duration + 120, "locust", None, locust_log)
        finally:
            if locust.poll() is None:
                locust.kill()
        load_seconds = time.time() - started
        drained = drain(args.drain)
        watcher.stop.set()
        watcher.join()
        if not out.exists():
            raise SystemExit(f"Locust wrote no results:\n{locust_log.read_text(errors='replace')[-3000:]}")
        learners = json.loads(out.read_text())
        result = {
            "machine": machine_description(),
            "database": database,
            "settings": {
                "learners": args.learners,
                "duration_s": args.duration,
                "think_scale": args.think_scale,
                "web_workers": args.web_workers,
                "celery_workers": 1,
                "classroom": CLASSROOM,
                "narration_summaries_recorded": narrated,
            },
            "load_average_before": load_before,
            "load_seconds": round(load_seconds, 1),
            "drain_seconds": round(drained, 1),
            "locust": learners,
            "runs": runs_outcome(learners["runs"], watcher.promises),
            "logs": log_problems(site.state_dir),
            "saturation": saturation(watcher.samples, os.cpu_count() or 1),
            "samples": watcher.samples,
        }
    return result


def verdict(result: dict[str, Any]) -> list[str]:
    """What must hold under a workshop; each broken rule in words."""
    broken = []
    server_errors = sum(n for key, n in result["locust"]["statuses"].items() if key.rsplit(" ", 1)[1].startswith("5"))
    if server_errors:
        broken.append(f"{server_errors} server errors (5xx)")
    if result["locust"]["total"]["failures"]:
        broken.append(f"{result['locust']['total']['failures']} failed requests: {result['locust']['problems'][:3]}")
    runs = result["runs"]
    for key in ("lost", "stuck", "failed_without_reason"):
        if runs[key]:
            broken.append(f"{len(runs[key])} runs {key.replace('_', ' ')}: {runs[key][:10]}")
    if result["logs"]["database is locked"]:
        broken.append(f"'database is locked' {result['logs']['database is locked']} times in the logs")
    return broken


def print_table(result: dict[str, Any]) -> None:
    s, runs = result["settings"], result["runs"]
    print(
        f"\nWorkshop: {s['learners']} learners, {s['duration_s']:g} s, think × {s['think_scale']:g}, "
        f"{result['database']}, "
        f"{s['web_workers']} web workers, 1 Celery worker; load average {result['saturation'].get('load_1min')}"
    )
    print(f"{'request type':<22} {'requests':>8} {'fail':>5} {'429':>5} {'p50 ms':>7} {'p95 ms':>7} {'p99 ms':>7}")
    for name, t in sorted(result["locust"]["types"].items()):
        print(
            f"{name:<22} {t['requests']:8d} {t['failures']:5d} {t['throttled']:5d} {t['median_ms']:7.0f} "
            f"{t['p95_ms']:7.0f} {t['p99_ms']:7.0f}"
        )
    wait = runs["queue_wait_s"]
    print(
        f"Runs: {runs['accepted']} accepted, {runs['trained']} trained, {runs['reused']} reused, statuses "
        f"{runs['statuses']}, lost {len(runs['lost'])}, stuck {len(runs['stuck'])}; queue wait p50 {wait['p50']} s, "
        f"p95 {wait['p95']} s; estimates held: {runs['estimates']}"
    )
    print(f"CPU (cores, mean): {result['saturation'].get('mean_cores')}; logs: {result['logs']}")


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    # Stopped with SIGTERM or Ctrl-C (even from a background job, which starts with SIGINT ignored), the
    # `with` blocks still stop the site's processes and remove its folder.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    signal.signal(signal.SIGINT, signal.default_int_handler)
    if args.postgres:
        with postgres_cluster() as (url, version, postmaster):
            result = measure(args, url, version, postmaster)
    else:
        result = measure(args)
    result["broken"] = verdict(result)
    print_table(result)
    if args.json:
        args.json.write_text(json.dumps(result, indent=1, default=str))
    if result["broken"]:
        print("FAILED: " + "; ".join(result["broken"]), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())


WORKSHOP_TITLE = "## A workshop: learners at once (Locust)"


def markdown_section(result: dict[str, Any], command: str) -> list[str]:
    """The run as docs/PERFORMANCE.md (`make bench`, the short version) and docs/SCALING.md show it."""
    s, runs = result["settings"], result["runs"]
    sat = saturation(result["samples"], result["machine"]["cores"])
    load = sat.get("load_1min", {})
    wait, learner_wait, est = runs["queue_wait_s"], runs["learner_median_wait_s"], runs["estimates"]
    lines = [
        WORKSHOP_TITLE,
        "",
        f"`{command}`: {s['learners']} learners for {s['duration_s'] / 60:g} min (think times × {s['think_scale']:g}), "
        f"all from one address with the site's own rate limits and `CLASSROOM_NETWORKS=127.0.0.0/8`, against a copy "
        f"of the site as `make run` serves it ({result['database']}, gunicorn {s['web_workers']} sync workers, one "
        f"Celery worker with beat, Redis), Locust on the same machine. Measured {result['machine']['date']} on "
        f"{result['machine']['cores']} shared cores; 1-minute load average {result['load_average_before'][0]:.1f} "
        f"before, {load.get('mean', 0):.1f} on average and {load.get('max', 0):.1f} at most during the load "
        "(other work shares the machine: the times below include waiting for a core).",
        "",
        "| Request type | Requests | Failed | 429 (with Retry-After) | p50 ms | p95 ms | p99 ms |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for name, t in sorted(result["locust"]["types"].items()):
        lines.append(
            f"| {name} | {t['requests']} | {t['failures']} | {t['throttled']} | {t['median_ms']:.0f} | "
            f"{t['p95_ms']:.0f} | {t['p99_ms']:.0f} |"
        )
    server_errors = sum(n for k, n in result["locust"]["statuses"].items() if k.rsplit(" ", 1)[1].startswith("5"))
    fmt = lambda v: "-" if v is None else f"{v:.1f}"  # noqa: E731
    lines += [
        "",
        f"Server errors (5xx): {server_errors}. Lab runs accepted: {runs['accepted']}, of which {runs['trained']} "
        f"trained and {runs['reused']} reused a stored result; by status "
        f"{', '.join(f'{k} {v}' for k, v in sorted(runs['statuses'].items()))}; lost "
        f"{len(runs['lost'])}, stuck {len(runs['stuck'])}, failed without a reason {len(runs['failed_without_reason'])}"
        f" (all checked in the database after the queue drained, {result['drain_seconds']:.0f} s after the load). "
        f'"database is locked" in the logs: {result["logs"]["database is locked"]}.',
        "",
        f"Lab queue wait (submitted to claimed by the worker, {runs['through_queue']} runs): p50 "
        f"{fmt(wait['p50'])} s, p95 {fmt(wait['p95'])} s, longest {fmt(wait['max'])} s; per learner (the median "
        f"of their runs' waits), p50 "
        f"{fmt(learner_wait['p50'])} s and p95 {fmt(learner_wait['p95'])} s. The run page's estimate against when "
        f"the run ended ({est['promises']} queued runs sampled): actual / estimated p50 "
        f"{fmt(est['actual_over_estimate_p50'])}, p95 {fmt(est['actual_over_estimate_p95'])}.",
        "",
        "CPU in cores, mean over the load: "
        + ", ".join(f"{name} {cores}" for name, cores in sat.get("mean_cores", {}).items())
        + f" (of {sat.get('machine_cores')}); most runs waiting at once: {sat.get('queued_max')}.",
        "",
        "Worker seconds per run (claim to finish, runs that trained): "
        + "; ".join(
            f"{kind} {v['median']:.1f} s median ({v['runs']} runs)" for kind, v in runs["worker_seconds"].items()
        )
        + ".",
        "",
        ("Nothing broke." if not result["broken"] else "What broke: " + "; ".join(result["broken"]) + "."),
        "",
    ]
    return lines
