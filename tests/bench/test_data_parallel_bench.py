"""The smallest run of bench/data_parallel.py that takes every path (the warm-up, one interleaved round,
the lab's first and later windows, both syncs, the bare loop's teardown), and its section of
docs/PERFORMANCE.md: both loops train the same curve and no_sync saves N-fold. Speed is only reported."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent.parent
sys.path.insert(0, str(ROOT / "bench"))

from report import FULL, data_parallel_section  # noqa: E402

pytestmark = pytest.mark.slow  # bin/unit leaves it out (tests/conftest.py)

STEPS, N = 2, 2  # two steps: the lab's measured first window and an ordinary one


def test_the_data_parallel_benchmark_runs_and_its_report_section_carries_its_figures(tmp_path):
    out = tmp_path / "data_parallel.json"
    command = [sys.executable, "bench/data_parallel.py", "--processes", "2", "--accumulation", str(N)]
    command += ["--rounds", "1", "--steps", str(STEPS), "--json", str(out)]
    result = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    found = json.loads(out.read_text())
    comm, speed = found["communication"], found["speed"]
    assert len(speed["lab_samples_per_second"]) == len(speed["bare_samples_per_second"]) == 1
    assert min(speed["lab_samples_per_second"] + speed["bare_samples_per_second"]) > 0
    assert speed["warmup_loss_max_abs_difference"] < 1e-5  # the lab and the bare loop train alike
    assert comm["every_micro"]["allreduce_calls"] == STEPS * N and comm["no_sync"]["allreduce_calls"] == STEPS
    assert comm["calls_ratio"] == N and comm["bytes_ratio"] == N
    printed = result.stdout.splitlines()
    assert any(line.startswith("  lab / bare") for line in printed)
    assert any(line.split()[:3] == ["saved", f"{N:.1f}x", f"{N:.1f}x"] for line in printed)
    section = "\n".join(data_parallel_section(found))
    assert "## Data-parallel lab" in section and "Lab / bare: " in section
    assert f"| `no_sync` | {comm['no_sync']['allreduce_calls']} | {comm['no_sync']['allreduce_bytes']:,} |" in section
    assert f"{N:.1f} times fewer all-reduce calls" in section
    assert FULL["data_parallel"][0] == "data_parallel"  # make bench runs it
