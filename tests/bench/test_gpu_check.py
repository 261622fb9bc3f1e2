"""bench/gpu_check.py's CPU mode, shortest settings: every section runs, the JSON has its shape, the
fp32 gradient-equivalence checks meet their bound and the bare loop trains the lab's curve. Timings
(the lab-to-bare-loop ratio included) are only reported, never asserted."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent.parent
sys.path.insert(0, str(ROOT / "bench"))

from report import FULL, gpu_check_section  # noqa: E402

pytestmark = pytest.mark.slow  # bin/unit leaves it out (tests/conftest.py)


def test_the_gpu_check_runs_on_the_cpu_and_fp32_accumulation_matches_the_full_batch(tmp_path):
    out = tmp_path / "gpu_check.json"
    command = [sys.executable, "bench/gpu_check.py", "--cpu", "--quick", "--steps", "2", "--out", str(out)]
    result = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=900)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    found = json.loads(out.read_text())
    assert found["mode"] == "cpu" and found["equivalence_passed"] is True
    sections = found["sections"]
    assert set(sections) == {"first_step", "equivalence", "memory", "throughput", "bare_loop"}
    assert all(section["error"] is None and section["rows"] for section in sections.values())

    bounded = [r for r in sections["equivalence"]["rows"] if r["bound"] is not None]
    assert {(r["task"], r["norm"]) for r in bounded} == {
        ("digits-cnn", "none"),
        ("guides-lm", "layer"),
        ("guides-lm", "rms"),
    }
    assert all(r["precision"] == "fp32" and r["passed"] and r["error"] <= 1e-5 for r in bounded)
    batch_norm = [r for r in sections["equivalence"]["rows"] if r["norm"] == "batch" and r["accumulation_steps"] == 4]
    assert batch_norm and batch_norm[0]["error"] > 1e-3  # the cautionary norm does not match, and is not bounded

    memory = sections["memory"]["rows"]
    assert [r["accumulation_steps"] for r in memory] == [1, 2, 4, 8]
    assert all(abs(r["ratio"] - r["ideal"]) <= 0.1 * r["ideal"] for r in memory)  # activations shrink N-fold
    assert {r["precision"] for r in sections["throughput"]["rows"]} == {"fp32", "bf16", "fp16"}
    assert all(r["tokens_per_second"] > 0 for r in sections["throughput"]["rows"])
    assert [r["run"] for r in sections["first_step"]["rows"]] == [1, 2]

    bare = sections["bare_loop"]["rows"]
    assert [(r["size"], r["precision"]) for r in bare] == [("tiny", "fp32")]
    assert bare[0]["loss_max_abs_difference"] <= 1e-5  # the same model, data and windows: the same curve
    assert bare[0]["ratio"] > 0 and bare[0]["aim"] == 0.97
    assert "Lab against a bare PyTorch loop" in result.stdout and "lab/bare" in result.stdout

    section = "\n".join(gpu_check_section(found))
    assert "## GPU check, CPU mode" in section and "Sections that failed: none." in section
    assert FULL["gpu_check"] == ("gpu_check", ["--cpu"])  # make bench runs it
