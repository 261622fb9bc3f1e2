"""The short version of bench/data_parallel.py, and its section of docs/PERFORMANCE.md: both loops
train the same curve and no_sync saves N-fold, which the report says. Speed is only reported."""

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent
sys.path.insert(0, str(ROOT / "bench"))

from report import FULL, data_parallel_section  # noqa: E402


def test_the_data_parallel_benchmark_runs_and_its_report_section_carries_its_figures(tmp_path):
    out = tmp_path / "data_parallel.json"
    command = [sys.executable, "bench/data_parallel.py", "--processes", "2", "--accumulation", "2"]
    command += ["--rounds", "1", "--steps", "2", "--json", str(out)]
    result = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=280)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    found = json.loads(out.read_text())
    comm, speed = found["communication"], found["speed"]
    assert comm["calls_ratio"] == 2.0 and comm["bytes_ratio"] == 2.0  # N = 2
    assert speed["warmup_loss_max_abs_difference"] < 1e-5  # the lab and the bare loop train alike
    section = "\n".join(data_parallel_section(found))
    assert "## Data-parallel lab" in section and "Lab / bare: " in section
    assert f"| `no_sync` | {comm['no_sync']['allreduce_calls']} | {comm['no_sync']['allreduce_bytes']:,} |" in section
    assert "2.0 times fewer all-reduce calls" in section
    assert FULL["data_parallel"][0] == "data_parallel"  # make bench runs it
