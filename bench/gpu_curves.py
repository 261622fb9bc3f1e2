"""Why the lab's and the bare loop's fp32 loss curves can differ on a GPU (bench/gpu_check.py's
bare_loop section): a difference between the loops, or CUDA kernels that do not give the same sums
twice?

For each guides-lm size, the lab (run_experiment) and the bare loop (bench/bare_loop.py) each train
the same fp32 run (TF32 off) twice, first with PyTorch's default kernels, then with
torch.use_deterministic_algorithms(True). Printed per size and mode: the largest loss difference
between the lab's two runs, between the bare loop's two, and between the lab and the bare loop.
If the loops agree, lab vs bare is no larger than a loop against itself, and with deterministic
kernels all three are about zero. CUBLAS_WORKSPACE_CONFIG is set for the whole process, as
deterministic cuBLAS needs it before its first use.

    python3 bench/gpu_curves.py [--sizes tiny small medium] [--steps 50] [--out gpu_curves.json]
"""

from __future__ import annotations

import os

os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")  # before torch starts cuBLAS

import argparse
import json
import sys
import warnings
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run from anywhere
sys.path.insert(0, str(Path(__file__).resolve().parent))  # bare_loop and gpu_check beside this file

import torch
from bare_loop import bare_run
from gpu_check import config

from labs.training.loop import run_experiment
from labs.training.sizes import SIZES


def losses(loop: str, cfg, device: torch.device) -> list[float]:
    if loop == "bare":
        return bare_run(cfg, device).losses
    return [point["loss"] for point in run_experiment(cfg, device=device).curve]


def largest_difference(a: list[float], b: list[float]) -> float:
    return max(abs(x - y) for x, y in zip(a, b, strict=True))


def compare(size: str, steps: int, batch: int, device: torch.device, deterministic: bool) -> dict[str, Any]:
    torch.use_deterministic_algorithms(deterministic, warn_only=True)
    cfg = config("guides-lm", size=size, precision="fp32", steps=steps).replace(effective_batch_size=batch)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        runs = {(loop, i): losses(loop, cfg, device) for i in (1, 2) for loop in ("lab", "bare")}
    nondeterministic = sorted(
        {str(w.message).split(" does not have a deterministic")[0] for w in caught if "deterministic" in str(w.message)}
    )
    return {
        "size": size,
        "deterministic": deterministic,
        "steps": steps,
        "effective_batch_size": batch,
        "lab_vs_lab": largest_difference(runs["lab", 1], runs["lab", 2]),
        "bare_vs_bare": largest_difference(runs["bare", 1], runs["bare", 2]),
        "lab_vs_bare": largest_difference(runs["lab", 1], runs["bare", 1]),
        "ops_without_deterministic_kernel": nondeterministic,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", nargs="+", default=list(SIZES), choices=list(SIZES))
    parser.add_argument("--steps", type=int, default=50, help="optimizer steps per run (gpu_check's full run: 50)")
    parser.add_argument("--batch", type=int, default=64, help="effective batch (gpu_check's full run: 64)")
    parser.add_argument("--out", type=Path, default=None, help="the JSON file (default $OUT/gpu_curves.json)")
    args = parser.parse_args(argv)
    out = args.out or Path(os.environ.get("OUT", ".")) / "gpu_curves.json"
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    print(f"device {device}, torch {torch.__version__}, fp32 with TF32 off, {args.steps} steps, batch {args.batch}")
    print(f"{'size':<8} {'kernels':<14} {'lab vs lab':>11} {'bare vs bare':>13} {'lab vs bare':>12}")
    rows = []
    for size in args.sizes:
        for deterministic in (False, True):
            row = compare(size, args.steps, args.batch, device, deterministic)
            rows.append(row)
            kernels = "deterministic" if deterministic else "default"
            print(
                f"{size:<8} {kernels:<14} {row['lab_vs_lab']:11.2e} {row['bare_vs_bare']:13.2e} "
                f"{row['lab_vs_bare']:12.2e}",
                flush=True,
            )
            for op in row["ops_without_deterministic_kernel"]:
                print(f"    no deterministic kernel: {op}")
    out.write_text(json.dumps({"device": str(device), "torch": torch.__version__, "rows": rows}, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
