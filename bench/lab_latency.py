"""Lab latency: from submitting a run through the API to seeing its first progress point.

Starts a throw-away copy of the site (bench/harness.py: production settings, its own Redis,
gunicorn, loopback only) and one Celery worker consuming the `gpu` queue with the embedded beat,
as the run command does. With the worker idle, a learner's API client (personal token, Bearer)
submits a small run (`POST /api/labs/runs`) and polls `GET /api/labs/runs/<id>` until the run
reports its first optimizer step; the time from the submission to that answer is one sample.
The run is then cancelled and the next one waits until the worker is idle again. Each run has
its own seed, so no finished result is reused. The first submission, which also loads PyTorch
in the worker, is reported on its own; the median is over the others.

    .venv/bin/python bench/lab_latency.py [--repeats 7] [--poll 0.025] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from harness import Browser, Site, machine_description, running_site

RUN = {  # a small run: its first step comes quickly, and it is cancelled after that anyway
    "task": "digits-mlp",
    "norm": "none",
    "effective_batch_size": 32,
    "accumulation_steps": 2,
    "loss_scaling": "mean",
    "optimizer": "sgd",
    "learning_rate": 0.05,
    "steps": 200,
}
ACTIVE = {"queued", "running"}


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=7, help="timed submissions after the first")
    parser.add_argument("--poll", type=float, default=0.025, help="seconds between polls (the resolution)")
    parser.add_argument("--timeout", type=float, default=120, help="seconds to wait for one run's first step")
    parser.add_argument("--json", type=Path, default=None, help="also write the results to this file")
    return parser.parse_args(argv)


def api(browser: Browser, token: str):
    auth = {"Authorization": f"Bearer {token}"}

    def call(method: str, path: str, data: Any = None) -> dict[str, Any]:
        reply = browser.post_json(path, data, auth) if method == "POST" else browser.get(path, auth)
        if reply.status not in (200, 201):
            raise RuntimeError(f"{method} {path} answered {reply.status}: {reply.body[:300]!r}")
        return reply.json()

    return call


def first_progress_seconds(call, seed: int, *, poll: float, timeout: float) -> tuple[float, dict[str, Any]]:
    started = time.perf_counter()
    run = call("POST", "/api/labs/runs", {**RUN, "seed": seed})
    deadline = started + timeout
    while time.perf_counter() < deadline:
        state = call("GET", f"/api/labs/runs/{run['id']}")
        if state["progress"]["done_steps"] >= 1 or state["status"] not in ACTIVE:
            if state["status"] in ("failed", "cancelled"):
                raise RuntimeError(f"run {run['id']} ended {state['status']}: {state.get('error')}")
            return time.perf_counter() - started, state
        time.sleep(poll)
    raise RuntimeError(f"run {run['id']} showed no progress within {timeout:.0f} s")


def wait_idle(call, run_id: int, timeout: float) -> dict[str, Any]:
    """Cancel the run and wait until it has ended, so the worker is idle for the next one."""
    state = call("GET", f"/api/labs/runs/{run_id}")
    if state["status"] in ACTIVE:
        try:
            call("POST", f"/api/labs/runs/{run_id}/cancel")
        except RuntimeError:  # it finished in between (409)
            pass
    deadline = time.perf_counter() + timeout
    while (state := call("GET", f"/api/labs/runs/{run_id}"))["status"] in ACTIVE:
        if time.perf_counter() > deadline:
            raise RuntimeError(f"run {run_id} did not end within {timeout:.0f} s of its cancellation")
        time.sleep(0.1)
    time.sleep(0.5)  # the worker's child writes its last state, then waits for the next message
    return state


def measure(site: Site, args: argparse.Namespace) -> dict[str, Any]:
    call = api(Browser(site.url), site.seed["api_token"])
    samples, devices = [], set()
    for index in range(args.repeats + 1):
        seconds, state = first_progress_seconds(call, seed=1000 + index, poll=args.poll, timeout=args.timeout)
        samples.append(seconds)
        print(f"  run {index + 1}/{args.repeats + 1}: first progress after {seconds * 1000:7.1f} ms", flush=True)
        devices.add(wait_idle(call, state["id"], args.timeout).get("device") or "not reported")
    return {"first_ms": samples[0] * 1000, "samples_ms": [s * 1000 for s in samples[1:]], "devices": sorted(devices)}


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    with running_site() as site:
        site.start_worker(beat=True)
        result = {**measure(site, args), "worker_warm_up_s": site.worker_warm_up_seconds()}
    samples = result["samples_ms"]
    summary = {
        "repeats": len(samples),
        "median_ms": statistics.median(samples),
        "min_ms": min(samples),
        "max_ms": max(samples),
        "first_submission_ms": result["first_ms"],
        "worker_warm_up_s": result["worker_warm_up_s"],
        "poll_interval_ms": args.poll * 1000,
        "device": ", ".join(result["devices"]),
        "run": RUN,
    }
    print(
        f"submit -> first progress with an idle worker: median {summary['median_ms']:.0f} ms over "
        f"{summary['repeats']} runs (min {summary['min_ms']:.0f}, max {summary['max_ms']:.0f}; polled every "
        f"{summary['poll_interval_ms']:.0f} ms); first submission after the worker was ready: "
        f"{summary['first_submission_ms']:.0f} ms (its pool child warmed up in {summary['worker_warm_up_s']} s first)"
    )
    if args.json:
        args.json.write_text(json.dumps({"machine": machine_description(), "summary": summary, **result}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
