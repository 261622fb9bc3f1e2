"""One command for a machine with a GPU: what the lab trainer (labs.training, no Django) measures there.

Sections, each guarded so one failure keeps the others' figures (its error is recorded instead):

- first_step: seconds from run_experiment's call to its first optimizer step, for the first run in
  this process (it pays CUDA's initialization) and for later runs. It runs first for that reason.
- equivalence: the relative difference between the accumulated gradient of window 1 and the
  full-batch one (the trainer's grad_equivalence_error), at N = 1 and N = 4, for digits-cnn and
  guides-lm (layer, rms, and batch norm, which is not expected to match), per precision: fp32 (TF32
  off) must stay within FP32_BOUND; tf32 (CUDA only), bf16 and fp16 are reported, with fp16's
  skipped steps (GradScaler).
- memory: guides-lm per size at N = 1, 2, 4, 8 and a fixed effective batch: the trainer's activation
  peak (on CUDA the allocator's peak during a micro-batch's forward and backward above what was
  allocated before it, gradients already allocated; elsewhere the saved tensors) against the ideal
  1/N, and on CUDA the allocator's total peak of a later step (its window and validation pass;
  step 1's full-batch reference gradient left out) and of the whole run.
- throughput: guides-lm tokens/s and samples/s per size and precision at N = 4, the trainer's own
  figures (the whole loop) and the steady rate between the first and last step.
- bare_loop: the lab's steady tokens/s against a hand-written PyTorch accumulation loop
  (bench/bare_loop.py) on the same guides-lm model, data, windows and validation schedule, in the
  same process, interleaved over rounds (alternating which goes first); the ratio of the medians
  is printed against the aim of 0.97, with the largest loss difference between the two curves.

Prints a table per section and writes the JSON to --out (default $OUT/gpu_check.json when $OUT is
set, else gpu_check.json). Exits 1 when an fp32 equivalence check misses its bound, 2 when a
section failed. `--quick` fits in about 3 minutes on a GPU; `--cpu` is tiny only and a few steps.

    .venv/bin/python bench/gpu_check.py [--quick] [--cpu] [--out gpu_check.json]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run from anywhere
sys.path.insert(0, str(Path(__file__).resolve().parent))  # bare_loop beside this file

import torch
from bare_loop import bare_run, steady_rate

from labs.training.config import RunConfig
from labs.training.loop import run_experiment
from labs.training.sizes import SIZES

FP32_BOUND = 1e-5  # the issue's bound for fp32 at N = 1 vs N = 4; float32 rounding gives ~1e-7
EQUIVALENT_NORMS = {"digits-cnn": ("none",), "guides-lm": ("layer", "rms")}
CAUTIONARY_NORMS = {"guides-lm": ("batch",)}  # reported: its statistics depend on the micro-batch
MEMORY_N = (1, 2, 4, 8)
BARE_LOOP_AIM = 0.97  # the lab's steady tokens/s over the bare loop's, at least


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="fewer sizes and steps: about 3 minutes on a GPU")
    parser.add_argument("--cpu", action="store_true", help="run on the CPU: size tiny only, a few steps")
    parser.add_argument("--steps", type=int, default=None, help="optimizer steps of each throughput run")
    parser.add_argument(
        "--out", "--json", dest="out", type=Path, default=None, help="the JSON file (default $OUT/gpu_check.json)"
    )
    args = parser.parse_args(argv)
    if args.out is None:
        args.out = Path(os.environ["OUT"]) / "gpu_check.json" if os.environ.get("OUT") else Path("gpu_check.json")
    return args


def plan(args: argparse.Namespace, device: torch.device) -> dict[str, Any]:
    """What each section runs: sizes, precisions, steps and batches for this device and mode."""
    cuda = device.type == "cuda"
    if not cuda:
        sizes, precisions, steps, batch = ("tiny",), ("fp32", "bf16", "fp16"), 3, 16
    elif args.quick:
        sizes, precisions, steps, batch = ("tiny", "small"), ("fp32", "tf32", "bf16", "fp16"), 10, 32
    else:
        sizes, precisions, steps, batch = tuple(SIZES), ("fp32", "tf32", "bf16", "fp16"), 40, 64
    return {
        "sizes": sizes,
        "precisions": precisions,
        "equivalence_sizes": sizes[:2],
        # fp16's skipped steps need a few; the CPU's quick mode measures window 1 alone (one validation pass).
        "equivalence_steps": (1 if args.quick else 2) if not cuda else (5 if args.quick else 20),
        "throughput_steps": args.steps or steps,
        "memory_batch": 16 if not cuda else 32,
        "throughput_batch": batch,
        "first_step_repeats": 2 if not cuda or args.quick else 3,
        "quick": args.quick,
        # The bare-loop comparison: enough steps for a steady rate, a few interleaved rounds.
        "bare_sizes": sizes,
        "bare_precisions": ("fp32",) if not cuda else ("fp32", "bf16"),
        "bare_steps": (4 if args.quick else 20) if not cuda else (20 if args.quick else 50),
        "bare_rounds": (1 if args.quick else 3) if not cuda else (3 if args.quick else 5),
    }


def config(task: str, **changes: Any) -> RunConfig:
    values: dict[str, Any] = dict(task=task, norm="none", loss_scaling="mean", seed=0, grad_clip=None)
    if task == "guides-lm":
        values |= dict(norm="layer", effective_batch_size=16, optimizer="adamw", learning_rate=3e-3)
    else:
        values |= dict(effective_batch_size=64, optimizer="sgd", learning_rate=0.05)
    values |= dict(accumulation_steps=4, steps=2)
    return RunConfig(**(values | changes))


def timed_run(cfg: RunConfig, device: torch.device, on_step: Callable[[int], None] | None = None) -> dict[str, Any]:
    """run_experiment with the seconds to its first step; on_step(done) after every step."""
    first: list[float] = []
    started = time.perf_counter()

    def progress(point: dict[str, Any], done: int, total: int) -> None:
        if done == 1:
            if device.type == "cuda":
                torch.cuda.synchronize(device)
            first.append(time.perf_counter() - started)
        if on_step is not None:
            on_step(done)

    result = run_experiment(cfg, device=device, on_progress=progress)
    return {"result": result, "first_step_seconds": first[0] if first else None}


# ---------------------------------------------------------------- sections


def first_step(device: torch.device, p: dict[str, Any]) -> list[dict[str, Any]]:
    cfg = config("guides-lm", size=p["sizes"][-1] if device.type == "cuda" else "tiny", steps=1)
    rows = []
    for index in range(p["first_step_repeats"]):
        found = timed_run(cfg.replace(seed=index), device)  # another seed: nothing reused
        rows.append({"run": index + 1, "size": cfg.size, "first_step_seconds": found["first_step_seconds"]})
    return rows


def equivalence(device: torch.device, p: dict[str, Any]) -> list[dict[str, Any]]:
    cases = [("digits-cnn", "tiny", norm) for norm in EQUIVALENT_NORMS["digits-cnn"]]
    for size in p["equivalence_sizes"]:
        cases += [("guides-lm", size, norm) for norm in EQUIVALENT_NORMS["guides-lm"] + CAUTIONARY_NORMS["guides-lm"]]
    rows = []
    for task, size, norm in cases:
        for precision in p["precisions"]:
            if precision != "fp32" and norm not in EQUIVALENT_NORMS[task]:
                continue  # the cautionary norm shows its error in fp32 alone
            if task != "guides-lm" and precision not in ("fp32", "tf32"):
                continue  # the conv task shows what TF32 does to cuDNN; autocast is shown on the transformer
            for n in (1, 4) if precision == "fp32" or not p["quick"] else (4,):  # N = 1 is the full batch itself
                cfg = config(task, size=size, norm=norm, precision=precision, accumulation_steps=n)
                started = time.perf_counter()
                result = run_experiment(cfg.replace(steps=p["equivalence_steps"]), device=device)
                bounded = precision == "fp32" and norm in EQUIVALENT_NORMS[task]
                error = result.grad_equivalence_error
                rows.append(
                    {
                        "task": task,
                        "size": size,
                        "norm": norm,
                        "precision": precision,
                        "accumulation_steps": n,
                        "error": error,
                        "bound": FP32_BOUND if bounded else None,
                        "passed": (error is not None and error <= FP32_BOUND) if bounded else None,
                        "steps": result.steps_done,
                        "skipped_steps": sum(bool(pt.get("skipped")) for pt in result.curve),
                        "status": result.status,
                        "seconds": round(time.perf_counter() - started, 2),
                    }
                )
    return rows


def memory(device: torch.device, p: dict[str, Any]) -> list[dict[str, Any]]:
    rows = []
    for size in p["sizes"]:
        base = None
        for n in MEMORY_N:
            cfg = config("guides-lm", size=size, effective_batch_size=p["memory_batch"], accumulation_steps=n)
            cfg = cfg if device.type == "cuda" else cfg.replace(steps=1)  # step 2's allocator peak is CUDA's
            peaks = _allocator_peaks(cfg, device)
            result, peak = peaks.pop("result"), None
            peak = result.peak_activation_bytes
            base = base or peak
            rows.append(
                {
                    "size": size,
                    "accumulation_steps": n,
                    "micro_batch_size": cfg.micro_batch_size,
                    "effective_batch_size": cfg.effective_batch_size,
                    "peak_activation_bytes": peak,
                    "ratio": peak / base if base and peak is not None else None,
                    "ideal": 1 / n,
                    "method": result.activation_memory_method,
                    **peaks,
                }
            )
    return rows


def _allocator_peaks(cfg: RunConfig, device: torch.device) -> dict[str, Any]:
    """A two-step run; on CUDA the allocator's peak of step 1 (with the full-batch reference
    gradient) and of step 2 (its window and validation pass) recorded apart."""
    if device.type != "cuda":
        return {"result": run_experiment(cfg, device=device)}
    step_one: list[int] = []

    def on_step(done: int) -> None:
        if done == 1:
            step_one.append(torch.cuda.max_memory_allocated(device))
            torch.cuda.reset_peak_memory_stats(device)

    torch.cuda.empty_cache()
    torch.cuda.reset_peak_memory_stats(device)
    result = timed_run(cfg, device, on_step)["result"]
    later = torch.cuda.max_memory_allocated(device)
    return {
        "result": result,
        "allocator_peak_later_step_bytes": later,
        "allocator_peak_run_bytes": max(later, *step_one),
    }


def throughput(device: torch.device, p: dict[str, Any]) -> list[dict[str, Any]]:
    rows = []
    for size in p["sizes"]:
        for precision in p["precisions"]:
            cfg = config(
                "guides-lm",
                size=size,
                precision=precision,
                effective_batch_size=p["throughput_batch"],
                steps=p["throughput_steps"],
            )
            result = run_experiment(cfg, device=device)
            first, last = result.curve[0], result.curve[-1]
            seconds = last["seconds"] - first["seconds"]  # steps 2..last, their validation passes in it
            rows.append(
                {
                    "size": size,
                    "precision": precision,
                    "accumulation_steps": cfg.accumulation_steps,
                    "effective_batch_size": cfg.effective_batch_size,
                    "steps": result.steps_done,
                    "parameters": result.parameter_count,
                    "tokens_per_second": result.tokens_per_second,
                    "samples_per_second": result.samples_per_second,
                    "steady_tokens_per_second": (last["tokens"] - first["tokens"]) / seconds if seconds > 0 else None,
                    "steady_samples_per_second": (last["samples"] - first["samples"]) / seconds
                    if seconds > 0
                    else None,
                    "wall_seconds": result.wall_seconds,
                    "status": result.status,
                }
            )
    return rows


def bare_loop(device: torch.device, p: dict[str, Any]) -> list[dict[str, Any]]:
    rows = []
    for size in p["bare_sizes"]:
        for precision in p["bare_precisions"]:
            cfg = config("guides-lm", size=size, precision=precision, steps=p["bare_steps"])
            cfg = cfg.replace(effective_batch_size=p["throughput_batch"])
            rates: dict[str, list[float]] = {"lab": [], "bare": []}
            curves: dict[str, list[float]] = {}
            for round_index in range(p["bare_rounds"]):
                for name in ("lab", "bare") if round_index % 2 == 0 else ("bare", "lab"):
                    seconds, tokens, losses = _loop_curve(name, cfg, device)
                    rates[name].append(steady_rate(seconds, tokens) or 0.0)
                    curves.setdefault(name, losses)
            lab, bare = statistics.median(rates["lab"]), statistics.median(rates["bare"])
            rows.append(
                {
                    "size": size,
                    "precision": precision,
                    "accumulation_steps": cfg.accumulation_steps,
                    "effective_batch_size": cfg.effective_batch_size,
                    "steps": cfg.steps,
                    "rounds": p["bare_rounds"],
                    "lab_tokens_per_second": rates["lab"],
                    "bare_tokens_per_second": rates["bare"],
                    "ratio": lab / bare if bare else None,
                    "aim": BARE_LOOP_AIM,
                    "loss_max_abs_difference": max(
                        abs(a - b) for a, b in zip(curves["lab"], curves["bare"], strict=True)
                    ),
                }
            )
    return rows


def _loop_curve(name: str, cfg: RunConfig, device: torch.device) -> tuple[list[float], list[int], list[float]]:
    """(seconds after each step, cumulative tokens, losses) of the lab's run or the bare loop's."""
    if device.type == "cuda":
        torch.cuda.synchronize(device)
    if name == "bare":
        run = bare_run(cfg, device)
        return run.seconds, run.tokens, run.losses
    result = run_experiment(cfg, device=device)
    return (
        [pt["seconds"] for pt in result.curve],
        [pt["tokens"] for pt in result.curve],
        [pt["loss"] for pt in result.curve],
    )


SECTIONS = {
    "first_step": first_step,
    "equivalence": equivalence,
    "memory": memory,
    "throughput": throughput,
    "bare_loop": bare_loop,
}


def run_sections(device: torch.device, p: dict[str, Any]) -> dict[str, Any]:
    """Every section in order; a failing one records its error and the others still run."""
    found: dict[str, Any] = {}
    for name, section in SECTIONS.items():
        started = time.perf_counter()
        try:
            found[name] = {"rows": section(device, p), "error": None}
        except Exception:
            found[name] = {"rows": [], "error": traceback.format_exc()}
        found[name]["seconds"] = round(time.perf_counter() - started, 2)
        print(f"{name}: {found[name]['seconds']:.1f} s{' (FAILED)' if found[name]['error'] else ''}", flush=True)
    return found


# ---------------------------------------------------------------- output


def _fmt(value: Any, spec: str) -> str:
    return "-" if value is None else format(value, spec)


def print_tables(report: dict[str, Any]) -> None:
    s = report["sections"]
    print(f"\ndevice {report['device']}, torch {report['torch']}, mode {report['mode']}")
    for name, section in s.items():
        if section["error"]:
            print(f"\n{name} FAILED:\n{section['error']}")
    print("\nTime to first step (run 1 pays the process's start-up: data, kernels, and CUDA's initialization on a GPU)")
    for row in s["first_step"]["rows"]:
        print(f"  run {row['run']} ({row['size']}): {_fmt(row['first_step_seconds'], '.3f')} s")
    print(f"\nGradient equivalence, window 1, accumulated vs full batch (fp32 bound {FP32_BOUND:.0e})")
    print(f"{'task':<11}{'size':<7}{'norm':<6}{'prec':<6}{'N':>3}{'error':>11}{'skipped':>9}  verdict")
    for r in s["equivalence"]["rows"]:
        verdict = {True: "ok", False: "OVER BOUND", None: "reported"}[r["passed"]]
        print(
            f"{r['task']:<11}{r['size']:<7}{r['norm']:<6}{r['precision']:<6}{r['accumulation_steps']:>3}"
            f"{_fmt(r['error'], '.2e'):>11}{r['skipped_steps']:>4}/{r['steps']:<4}  {verdict}"
        )
    print("\nActivation memory vs N at a fixed effective batch (guides-lm)")
    print(
        f"{'size':<7}{'N':>3}{'micro':>6}{'activation B':>15}{'ratio':>7}{'1/N':>7}{'alloc step2':>14}{'alloc run':>14}"
    )
    for r in s["memory"]["rows"]:
        print(
            f"{r['size']:<7}{r['accumulation_steps']:>3}{r['micro_batch_size']:>6}"
            f"{_fmt(r['peak_activation_bytes'], ','):>15}{_fmt(r['ratio'], '.3f'):>7}{r['ideal']:>7.3f}"
            f"{_fmt(r.get('allocator_peak_later_step_bytes'), ','):>14}"
            f"{_fmt(r.get('allocator_peak_run_bytes'), ','):>14}"
        )
    print("\nThroughput (guides-lm, N = 4): the trainer's whole loop, and steady (steps 2..last)")
    print(
        f"{'size':<7}{'prec':<6}{'params':>11}{'tokens/s':>12}{'samples/s':>11}{'steady tok/s':>14}{'steady smp/s':>14}"
    )
    for r in s["throughput"]["rows"]:
        print(
            f"{r['size']:<7}{r['precision']:<6}{r['parameters']:>11,}{_fmt(r['tokens_per_second'], ',.0f'):>12}"
            f"{_fmt(r['samples_per_second'], ',.1f'):>11}{_fmt(r['steady_tokens_per_second'], ',.0f'):>14}"
            f"{_fmt(r['steady_samples_per_second'], ',.1f'):>14}"
        )

    print("\nLab against a bare PyTorch loop (guides-lm, N = 4): steady tokens/s, median of interleaved rounds")
    print(f"{'size':<7}{'prec':<6}{'lab tok/s':>12}{'bare tok/s':>12}{'lab/bare':>10}  aim >= {BARE_LOOP_AIM}")
    for r in s["bare_loop"]["rows"]:
        lab, bare = statistics.median(r["lab_tokens_per_second"]), statistics.median(r["bare_tokens_per_second"])
        print(
            f"{r['size']:<7}{r['precision']:<6}{lab:>12,.0f}{bare:>12,.0f}{_fmt(r['ratio'], '.3f'):>10}  "
            f"(loss curves within {r['loss_max_abs_difference']:.1e})"
        )


def main(argv: list[str] | None = None) -> int:
    started = time.perf_counter()
    args = parse_args(argv)
    cuda = torch.cuda.is_available() and not args.cpu  # nothing above touched CUDA: first_step sees its start
    device = torch.device("cuda" if cuda else "cpu")
    if not cuda:
        torch.set_num_threads(min(2, torch.get_num_threads()))
    p = plan(args, device)
    sections = run_sections(device, p)
    failed_bounds = [r for r in sections["equivalence"]["rows"] if r["passed"] is False]
    report = {
        "device": torch.cuda.get_device_name(device) if cuda else "cpu",
        "torch": torch.__version__,
        "mode": "cpu" if not cuda else ("quick" if args.quick else "full"),
        "plan": p,
        "fp32_bound": FP32_BOUND,
        "equivalence_passed": not failed_bounds and not sections["equivalence"]["error"],
        "seconds": round(time.perf_counter() - started, 2),
        "sections": sections,
    }
    print_tables(report)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2, default=list))
    print(f"\nwrote {args.out} ({report['seconds']:.0f} s)")
    if failed_bounds:
        return 1
    return 2 if any(section["error"] for section in sections.values()) else 0


if __name__ == "__main__":
    sys.exit(main())
