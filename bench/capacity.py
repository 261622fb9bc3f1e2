"""The capacity plan's numbers: how many lab workers a workshop of N learners and T minutes needs for
a p95 queue wait of W seconds, by a small discrete-event simulation in plain Python (heapq) driven by
measured figures.

    .venv/bin/python bench/capacity.py --measure inputs.json   # each preset's sweep on an idle CPU worker
    .venv/bin/python bench/capacity.py --plan inputs.json [--workshop full.json] [--markdown]

`--measure` starts a copy of the site with one Celery worker (bench/harness.py) and trains, one
after the other, every run of the preset of each guide, in the guides' order, and a learner's own
API run (the workshop scenario's: digits-mlp, 100 steps) a few times; it records each run's seconds
on the worker (claim to finish) and each guide quiz's number of questions.

`--plan` simulates learners who behave as bench/workshop_locustfile.py's do: they arrive over two
minutes, sign up, then for each guide in order read it, answer its quiz, run its preset and wait for
the sweep to end, submit one run of their own and wait for it, compare and open the dashboard, with
the same think times. Runs go to one first-come-first-served queue shared by the workers. A preset
run whose twin (the same settings, seed and code) has finished is reused at once, without queueing;
one whose twin is still queued or training waits, and when a worker claims it after the twin has
finished it only copies the result (the measured seconds of such a claim, from the workshop run).
The quotas apply: LAB_MAX_ACTIVE_RUNS runs queued or running per learner, LAB_SUBMIT_RATE
submissions per learner and hour, the daily budget of samples. Each configuration is simulated with
several seeds; the queue wait reported is the p95 over every queued run of every seed.

"With GPU workers": the recorded H200 figures (docs/gpu/) hold guides-lm's steady samples/s per
size, not the digits tasks' of these presets, so the simulated GPU variant gives each learner's own
run to guides-lm `small` (GPU_RUN below: it needs a GPU worker), timed from those figures plus the
overhead per run measured here; the preset runs stay on the same queue, which GPU workers also take.
"""

from __future__ import annotations

import argparse
import heapq
import itertools
import json
import random
import statistics
import sys
import time
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
GPU_FIGURES = ROOT / "docs" / "gpu" / "gpu_check-2026-12-04-h200.json"
API_RUN = {
    "task": "digits-mlp",
    "norm": "none",
    "effective_batch_size": 64,
    "loss_scaling": "mean",
    "optimizer": "sgd",
    "learning_rate": 0.05,
    "steps": 100,
}  # fmt: skip  (the scenario's own run)
GPU_RUN = {"size": "small", "precision": "fp32", "steps": 200, "effective_batch_size": 16}  # a learner's own, on a GPU

# The Locust scenario's think times, in seconds (bench/workshop_locustfile.py): (low, high), uniform.
THINK = {
    "arrive": (0, 120),  # spawn: all learners within two minutes
    "sign_up": (25, 80),  # the home page (5-20) and the form (20-60)
    "read": (70, 180),  # the guide (60-150) and one explorable figure (10-30)
    "before_quiz": (10, 30),
    "quiz_open": (3, 10),
    "question": (8, 25),
    "quiz_close": (3, 10),
    "before_lab": (10, 30),
    "preset_page": (10, 30),
    "after_preset": (10, 30),
    "token": (5, 15),  # once, creating the API token
    "after_run": (5, 20),
    "next_guide": (10, 30),
}


# ---- measuring ---------------------------------------------------------------------------------------


def measure(out: Path, api_repeats: int) -> None:
    sys.path[:0] = [str(BENCH), str(ROOT)]  # the harness, and the site (Django in this process)
    import os

    from harness import machine_description, running_site

    load_before = os.getloadavg()
    budget = {"LAB_DAILY_SAMPLE_BUDGET": "1000000000", "LAB_MAX_ACTIVE_RUNS": "100"}
    with running_site(workers=1, extra_env=budget) as site:
        site.use_database()
        site.start_worker(beat=True)
        from django.contrib.auth import get_user_model

        from course.models import Guide
        from labs.models import LabRun
        from labs.presets import PRESETS
        from labs.services import lab_preset_submit, lab_run_submit
        from labs.training.config import RunConfig
        from quizzes import selectors, services
        from quizzes.models import Attempt

        user = get_user_model().objects.get(username="bench-learner")
        guides, presets = [], {}
        for guide in Guide.objects.filter(is_published=True).order_by("order"):
            quiz = selectors.published_quizzes().filter(slug=guide.slug).first()
            questions = 0
            if quiz is not None:
                attempt = services.attempt_start(
                    quiz=quiz, user=user, owned=Attempt.objects.filter(user=user), language="en"
                )
                questions = attempt.total
            guides.append({"slug": guide.slug, "preset": guide.lab_preset, "questions": questions})
            if guide.lab_preset and guide.lab_preset not in presets:
                runs = lab_preset_submit(user=user, preset=PRESETS[guide.lab_preset])
                presets[guide.lab_preset] = _wait([r.pk for r in runs], LabRun)
                print(f"  {guide.lab_preset}: {presets[guide.lab_preset]}", flush=True)
        api, api_ids = [], []
        for seed in range(api_repeats):
            config = RunConfig(**API_RUN, accumulation_steps=[1, 4, 8][seed % 3], seed=1000 + seed)
            api_ids.append(lab_run_submit(user=user, config=config).pk)
            api += _wait(api_ids[-1:], LabRun)
        # The training loop's own time: the rest of a run's time on the worker is the worker's overhead.
        walls = [run.metrics["wall_seconds"] for run in LabRun.objects.filter(pk__in=api_ids)]
        print(f"  api run: {api}", flush=True)
        result = {
            "machine": machine_description(),
            "load_average_before": load_before,
            "load_average_after": os.getloadavg(),
            "guides": guides,
            "preset_run_seconds": presets,  # each run of the sweep, in order: seconds on the worker
            "api_run_seconds": api,
            "api_run_wall_seconds": statistics.median(walls),
        }
    out.write_text(json.dumps(result, indent=1))


def _wait(ids: list[int], LabRun) -> list[float]:
    while LabRun.objects.filter(pk__in=ids, finished_at__isnull=True).exists():
        time.sleep(0.5)
    runs = LabRun.objects.filter(pk__in=ids).select_related("reused_from").order_by("pk")
    failed = [run.pk for run in runs if run.status != LabRun.Status.SUCCEEDED]
    if failed:
        raise SystemExit(f"runs {failed} did not succeed")
    # A run that copied its twin (the seed's own sweep of the first guide's preset): the twin's training time.
    trained = [run.reused_from or run for run in runs]
    return [round((run.finished_at - run.started_at).total_seconds(), 3) for run in trained]


# ---- the simulation -----------------------------------------------------------------------------------


@dataclass
class Run:
    learner: int
    seconds: float  # on a worker when it trains (a CPU worker's)
    twin: str = ""  # a preset run's settings: identical ones train once
    gpu_only: bool = False
    gpu_seconds: float = 0.0
    submitted: float = 0.0
    claimed: float = -1.0


@dataclass
class Inputs:
    guides: list[dict[str, Any]]
    preset_seconds: dict[str, list[float]]
    api_seconds: list[float]
    twin_claim_seconds: float  # a claimed run whose twin finished meanwhile: copy the result
    max_active: int = 12
    submit_per_hour: int = 30
    gpu_run_seconds: float = 0.0
    recycle_every: int = 0  # CELERY_WORKER_MAX_TASKS_PER_CHILD (0: never)
    recycle_seconds: float = 0.0  # the worker's pause while its new pool child loads PyTorch


@dataclass
class Simulation:
    inputs: Inputs
    learners: int
    minutes: float
    cpu_workers: int
    gpu_workers: int = 0
    gpu_variant: bool = False  # each learner's own run is GPU_RUN (guides-lm small: GPU workers only)
    seed: int = 0
    events: list = field(default_factory=list)
    queue: deque = field(default_factory=deque)
    waits: list[float] = field(default_factory=list)

    def run(self) -> list[float]:
        self.rng = random.Random(self.seed)
        self.counter = 0
        self.now = 0.0
        self.finished_twins: set[str] = set()
        # Workers by name ("cpu0", "gpu1"...): each counts its tasks, and its pool child is replaced
        # (CELERY_WORKER_MAX_TASKS_PER_CHILD) with the measured pause while the new one loads PyTorch.
        self.idle = [f"cpu{n}" for n in range(self.cpu_workers)] + [f"gpu{n}" for n in range(self.gpu_workers)]
        self.tasks = dict.fromkeys(self.idle, 0)
        self.active = [0] * self.learners
        self.submits: list[list[float]] = [[] for _ in range(self.learners)]
        self.waiting: dict[int, int] = {}  # learner -> runs still to end before they go on
        self.resume: dict[int, Any] = {}
        end = self.minutes * 60
        for learner in range(self.learners):
            journey = self.journey(learner)
            self.at(self.think("arrive"), ("step", learner, journey))
        while self.events and self.events[0][0] <= end:
            self.now, _n, event = heapq.heappop(self.events)
            if event[0] == "step":
                self.step(event[1], event[2])
            elif event[0] == "submit":
                self.try_submit(event[1], event[2], event[3])
            elif event[0] == "back":  # a new pool child is ready
                self.idle.append(event[1])
                self.dispatch()
            elif event[0] == "done":
                self.done(event[1], event[2])
        # Runs still queued at the end waited at least until then: counted, so a backlog shows.
        self.waits += [end - run.submitted for run in self.queue]
        return self.waits

    def at(self, delay: float, event: tuple) -> None:
        self.counter += 1
        heapq.heappush(self.events, (self.now + delay, self.counter, event))

    def think(self, name: str) -> float:
        return self.rng.uniform(*THINK[name])

    def journey(self, learner: int):
        """A generator of what the learner does: each yield is ("think", seconds) or ("runs", [Run])."""
        yield ("think", self.think("sign_up"))
        has_token = False
        while True:
            for guide in self.inputs.guides:
                yield ("think", self.think("read") + self.think("before_quiz"))
                if guide["questions"]:
                    quiz = self.think("quiz_open") + self.think("quiz_close")
                    yield ("think", quiz + sum(self.think("question") for _ in range(guide["questions"])))
                yield ("think", self.think("before_lab"))
                preset = guide["preset"]
                if preset:
                    yield ("think", self.think("preset_page"))
                    runs = [
                        Run(learner, s, twin=f"{preset}#{i}") for i, s in enumerate(self.inputs.preset_seconds[preset])
                    ]
                    yield ("runs", runs)
                    yield ("think", self.think("after_preset"))
                if not has_token:
                    has_token = True
                    yield ("think", self.think("token"))
                if self.gpu_variant:
                    own = Run(learner, 0, gpu_only=True, gpu_seconds=self.inputs.gpu_run_seconds)
                else:
                    own = Run(learner, self.rng.choice(self.inputs.api_seconds))
                yield ("runs", [own])
                yield ("think", self.think("after_run") + self.think("next_guide"))

    def step(self, learner: int, journey) -> None:
        kind, value = next(journey)
        if kind == "think":
            self.at(value, ("step", learner, journey))
            return
        self.try_submit(learner, journey, value)

    def try_submit(self, learner: int, journey, runs: list[Run]) -> None:
        """LAB_SUBMIT_RATE: past it the learner waits as Retry-After says. (LAB_MAX_ACTIVE_RUNS never
        binds here: a learner waits for their runs to end before going on, as the scenario's do.)"""
        recent = [t for t in self.submits[learner] if t > self.now - 3600]
        if len(recent) >= self.inputs.submit_per_hour:
            self.at(recent[0] + 3600 - self.now, ("submit", learner, journey, runs))
            return
        self.submit(learner, journey, runs)

    def submit(self, learner: int, journey, runs: list[Run]) -> None:
        self.submits[learner].append(self.now)
        pending = 0
        for run in runs:
            if run.twin and run.twin in self.finished_twins:
                continue  # reused at once: no queue
            run.submitted = self.now
            self.queue.append(run)
            pending += 1
        self.waiting[learner] = pending
        self.resume[learner] = journey
        self.dispatch()
        if not pending:
            self.at(0, ("step", learner, journey))

    def dispatch(self) -> None:
        while self.idle and self.queue:
            for position, run in enumerate(self.queue):
                kind = next((w for w in self.idle if w.startswith("gpu") or not run.gpu_only), None)
                if kind is None:
                    continue
                del self.queue[position]
                self.idle.remove(kind)
                self.waits.append(self.now - run.submitted)
                if run.twin and run.twin in self.finished_twins:
                    seconds = self.inputs.twin_claim_seconds
                elif run.gpu_only:
                    seconds = run.gpu_seconds
                else:
                    seconds = run.seconds  # the recorded GPU figures cover guides-lm only: a GPU takes the CPU's time
                self.at(seconds, ("done", run, kind))
                break
            else:
                return  # no idle worker can take any waiting run

    def done(self, run: Run, kind: str) -> None:
        self.tasks[kind] += 1
        if self.inputs.recycle_every and self.tasks[kind] % self.inputs.recycle_every == 0:
            self.at(self.inputs.recycle_seconds, ("back", kind))
        else:
            self.idle.append(kind)
        if run.twin:
            self.finished_twins.add(run.twin)
        self.waiting[run.learner] -= 1
        if self.waiting[run.learner] == 0:
            self.at(0, ("step", run.learner, self.resume.pop(run.learner)))
        self.dispatch()


def quantile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))] if ordered else 0.0


def simulate(inputs: Inputs, learners: int, minutes: float, cpu: int, gpu: int = 0, gpu_variant: bool = False,
             seeds: int = 5) -> dict[str, float]:  # fmt: skip
    waits: list[float] = []
    for seed in range(seeds):
        waits += Simulation(inputs, learners, minutes, cpu, gpu, gpu_variant, seed).run()
    return {"runs": len(waits) / seeds, "p50": quantile(waits, 0.5), "p95": quantile(waits, 0.95)}


def workers_needed(inputs: Inputs, learners: int, minutes: float, p95_wait: float, *, gpu_variant: bool = False,
                   limit: int = 512, seeds: int = 5) -> tuple[int, dict[str, float]]:  # fmt: skip
    """The fewest workers whose simulated p95 queue wait is within p95_wait: CPU workers, or in the GPU
    variant GPU workers alone (they take every run; the preset runs at a CPU's time, see above)."""

    def result(count: int) -> dict[str, float]:
        cpu, gpu = (0, count) if gpu_variant else (count, 0)
        return simulate(inputs, learners, minutes, cpu, gpu, gpu_variant, seeds)

    count = _fewest(lambda n: result(n)["p95"] <= p95_wait, limit)
    return count, (result(count) if count <= limit else {})


def _fewest(fits, limit: int) -> int:
    """The smallest n in [1, limit] with fits(n), by doubling then bisecting (limit + 1: none)."""
    low, high = 1, 1
    while high < limit and not fits(high):
        low, high = high + 1, min(limit, high * 2)
    if not fits(high):
        return limit + 1
    while low < high:
        middle = (low + high) // 2
        if fits(middle):
            high = middle
        else:
            low = middle + 1
    return low


# ---- the plan ------------------------------------------------------------------------------------------


def gpu_run_seconds(overhead: float) -> float:
    """GPU_RUN on the recorded H200 (docs/gpu): its samples at guides-lm small's steady samples/s, plus
    the first step's extra time recorded there, plus the worker's own overhead per run measured here."""
    figures = json.loads(GPU_FIGURES.read_text())["sections"]
    row = next(r for r in figures["throughput"]["rows"]
               if r["size"] == GPU_RUN["size"] and r["precision"] == GPU_RUN["precision"])  # fmt: skip
    first = [r["first_step_seconds"] for r in figures["first_step"]["rows"]]
    warm_first_step = statistics.median(first[1:])  # the process's later runs: the pool child is warm
    samples = GPU_RUN["steps"] * GPU_RUN["effective_batch_size"]
    return samples / row["steady_samples_per_second"] + warm_first_step + overhead


def gpu_runs_per_hour(overhead: float) -> list[str]:
    """Runs per GPU-worker-hour per size and precision, from the recorded H200 figures (docs/gpu/) for
    GPU_RUN's shape, with the recorded warm first step and the worker's overhead measured here."""
    figures = json.loads(GPU_FIGURES.read_text())["sections"]
    first = statistics.median([r["first_step_seconds"] for r in figures["first_step"]["rows"]][1:])
    samples = GPU_RUN["steps"] * GPU_RUN["effective_batch_size"]
    lines = [
        "| Size | Precision | Steady samples/s (H200, recorded at batch 64, N = 4) | "
        f"Seconds per run of {GPU_RUN['steps']} steps × "
        f"{GPU_RUN['effective_batch_size']} | Runs per worker-hour |",
        "|---|---|---:|---:|---:|",
    ]
    for row in figures["throughput"]["rows"]:
        seconds = samples / row["steady_samples_per_second"] + first + overhead
        lines.append(
            f"| {row['size']} | {row['precision']} | {row['steady_samples_per_second']:,.0f} | {seconds:.1f} | "
            f"{3600 / seconds:,.0f} |"
        )
    return lines


def worker_overhead(measured: dict[str, Any]) -> float:
    """A run's seconds on the worker less its training loop's own (claim, progress writes, finish)."""
    api = measured["api_run_seconds"]
    return max(0.0, statistics.median(api) - measured.get("api_run_wall_seconds", statistics.median(api)))


def load_inputs(measured: dict[str, Any], workshop: dict[str, Any] | None, recycle_every: int = 50) -> Inputs:
    """The simulation's inputs from --measure's JSON; a claimed run whose twin finished meanwhile takes
    the workshop run's measured seconds (without one, the shortest preset run's: more, never less)."""
    twin, api = 0.0, measured["api_run_seconds"]
    if workshop is not None:
        seconds = workshop["runs"]["worker_seconds"]
        twin = seconds.get("a twin finished while it waited (no training)", {}).get("median", 0.0)
        # The learners' own runs as the workshop's worker trained them, under that run's load: slower and
        # more spread than on an idle worker, so the plan errs on the side of more workers.
        api = [r["finished"] - r["started"] for r in workshop["runs"]["rows"]
               if r["started"] and r["finished"] and not r["preset"] and not r["reused"]] or api  # fmt: skip
    return Inputs(
        guides=measured["guides"],
        preset_seconds=measured["preset_run_seconds"],
        api_seconds=api,
        twin_claim_seconds=twin or min(min(v) for v in measured["preset_run_seconds"].values()),
        gpu_run_seconds=gpu_run_seconds(worker_overhead(measured)),
        recycle_every=recycle_every,
        recycle_seconds=recycle_seconds(workshop) if recycle_every else 0.0,
    )


def recycle_seconds(workshop: dict[str, Any] | None) -> float:
    """The worker's pauses longer than 10 s between two runs while a run waited, in the workshop run:
    the pool child replaced after CELERY_WORKER_MAX_TASKS_PER_CHILD tasks loads PyTorch meanwhile."""
    if workshop is None:
        return 0.0
    rows = sorted((r for r in workshop["runs"]["rows"] if r["started"] and r["finished"]), key=lambda r: r["started"])
    pauses = [b["started"] - a["finished"] for a, b in itertools.pairwise(rows) if b["created"] < a["finished"]]
    long = [pause for pause in pauses if pause > 10]
    return statistics.median(long) if long else 0.0


def runs_per_worker_hour(measured: dict[str, Any]) -> list[str]:
    lines = [
        "| Preset (guide) | Runs in the sweep | Seconds per run on the worker (median; each) | Runs per worker-hour |",
        "|---|---:|---|---:|",
    ]
    for guide in measured["guides"]:
        seconds = measured["preset_run_seconds"].get(guide["preset"])
        if not seconds:
            continue
        lines.append(
            f"| `{guide['preset']}` ({guide['slug']}) | {len(seconds)} | {statistics.median(seconds):.1f} "
            f"({', '.join(f'{s:.1f}' for s in seconds)}) | {3600 / statistics.median(seconds):,.0f} |"
        )
    api = measured["api_run_seconds"]
    lines.append(f"| a learner's own API run (digits-mlp, 100 steps) | 1 | {statistics.median(api):.1f} "
                 f"({', '.join(f'{s:.1f}' for s in api)}) | {3600 / statistics.median(api):,.0f} |")  # fmt: skip
    return lines


def plan_table(inputs: Inputs, learners: list[int], minutes: float, waits: list[float]) -> list[str]:
    lines = [
        f"| Learners | p95 queue wait aimed at | CPU workers | Queue wait p50 / p95 (s) | Runs queued | "
        f"H200 workers, own runs on guides-lm {GPU_RUN['size']} | Queue wait p50 / p95 (s) |",
        "|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for count in learners:
        seeds = 5 if count <= 300 else 3
        for wait in waits:
            cpu, cpu_result = workers_needed(inputs, count, minutes, wait, seeds=seeds)
            gpu, gpu_result = workers_needed(inputs, count, minutes, wait, gpu_variant=True, seeds=seeds)
            cpu_waits = f"{cpu_result.get('p50', 0):.1f} / {cpu_result.get('p95', 0):.1f}"
            gpu_waits = f"{gpu_result.get('p50', 0):.1f} / {gpu_result.get('p95', 0):.1f}"
            runs = cpu_result.get("runs", 0)
            lines.append(f"| {count:,} | {wait:g} s | {cpu} | {cpu_waits} | {runs:,.0f} | {gpu} | {gpu_waits} |")
            print(lines[-1], flush=True)
    return lines


def calibration(inputs: Inputs, workshop: dict[str, Any]) -> str:
    """The simulation of the measured workshop (its learners, minutes and one CPU worker) against it."""
    s, measured = workshop["settings"], workshop["runs"]["queue_wait_s"]
    simulated = simulate(inputs, s["learners"], s["duration_s"] / 60, 1, 0, False, seeds=5)
    return (
        f"Simulated {s['learners']} learners for {s['duration_s'] / 60:g} min on one CPU worker: queue wait p50 "
        f"{simulated['p50']:.1f} s, p95 {simulated['p95']:.1f} s ({simulated['runs']:.0f} runs queued); measured: "
        f"p50 {measured['p50']:.1f} s, p95 {measured['p95']:.1f} s ({workshop['runs']['through_queue']} runs queued)."
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--measure", type=Path, help="train the presets on an idle worker; write the figures here")
    parser.add_argument("--api-repeats", type=int, default=5)
    parser.add_argument("--plan", type=Path, help="the figures --measure wrote: simulate and print the plan")
    parser.add_argument("--workshop", type=Path, help="bench/workshop.py's JSON (the twin claims' seconds)")
    parser.add_argument("--minutes", type=float, default=120, help="the workshop's length")
    parser.add_argument("--learners", type=int, nargs="+", default=[30, 100, 300, 1000])
    parser.add_argument("--waits", type=float, nargs="+", default=[60, 300], help="p95 queue waits aimed at (s)")
    args = parser.parse_args(argv)
    if args.measure:
        measure(args.measure, args.api_repeats)
    if args.plan:
        measured = json.loads(args.plan.read_text())
        workshop = json.loads(args.workshop.read_text()) if args.workshop else None
        inputs = load_inputs(measured, workshop)
        print("\n".join(runs_per_worker_hour(measured)))
        print()
        print("\n".join(gpu_runs_per_hour(worker_overhead(measured))))
        print(f"\nA learner's own run on an H200 ({GPU_RUN}): {inputs.gpu_run_seconds:.2f} s; twin claim "
              f"{inputs.twin_claim_seconds:.2f} s\n")  # fmt: skip
        if workshop is not None:
            print(calibration(inputs, workshop))
        plan_table(inputs, args.learners, args.minutes, args.waits)
    return 0


if __name__ == "__main__":
    sys.exit(main())
