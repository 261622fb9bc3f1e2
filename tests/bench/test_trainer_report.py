"""How bench/report.py writes the trainer benchmarks' section, alone (`--trainer-only`) or in the whole
report. bench/trainer.py itself takes minutes and runs only in `make bench`, never in the tests."""

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent
sys.path.insert(0, str(ROOT / "bench"))

import pytest  # noqa: E402
import report  # noqa: E402
from report import TRAINER_RUNS, TRAINER_TITLE, trainers_section  # noqa: E402

pytestmark = pytest.mark.slow  # bin/unit leaves it out (tests/conftest.py)


def trainer_result(task: str, lab_over_bare: float) -> dict:
    """The parts of bench/trainer.py's JSON that the report reads."""
    measure = {
        "lab_steps_per_second": [100.0 * lab_over_bare] * 3,
        "bare_steps_per_second": [100.0] * 3,
        "ratio_of_medians": lab_over_bare,
        "median_paired_ratio": lab_over_bare,
    }
    config = {"task": task, "norm": "none", "effective_batch_size": 64, "accumulation_steps": 4, "steps": 200}
    return {
        "device": "cpu",
        "threads": 1,
        "torch": "2.13.0+cpu",
        "speed": {"config": config, "measures": {"wall": measure}, "warmup_loss_max_abs_difference": 0.0},
        "accelerate": {
            "weights": {"equal": True, "steps": 20, "max_relative_difference": 0.0, "tolerance": 1e-6},
            "measures": {"wall": {"ratio_of_medians": 1.2, "median_paired_ratio": 1.2}},
        },
        "memory": [
            {"accumulation_steps": n, "micro_batch_size": 64 // n, "peak_activation_bytes": 1000 // n,
             "ratio": 1 / n, "ideal": 1 / n, "method": "saved-tensors"}
            for n in (1, 2)
        ],
    }  # fmt: skip


def test_every_task_is_under_the_one_title_with_its_ratio():
    results = [trainer_result(task, 0.98 + i / 100) for i, task in enumerate(("digits-cnn", "tiny-lm", "guides-lm"))]
    section = trainers_section(results, "Measured on their own.")
    assert section[:4] == [TRAINER_TITLE, "", "Measured on their own.", ""]
    assert [line for line in section if line.startswith("### ")] == [
        "### Task `digits-cnn`",
        "### Task `tiny-lm`",
        "### Task `guides-lm`",
    ]
    assert "| whole run, wall time | 98.0 | 100.0 | 0.980 | 0.980 |" in section


def test_trainer_only_replaces_its_section_and_keeps_the_others(monkeypatch, tmp_path):
    out = tmp_path / "PERFORMANCE.md"
    out.write_text(
        f"# Performance\n\n## Machine\n\nkept\n\n{TRAINER_TITLE}\n\nold figures\n\n## Data-parallel\n\nkept too\n"
    )
    ran = []

    def run_benchmark(name, script, options, folder):
        ran.append((name, script))
        return trainer_result(name, 0.99), 1.0

    monkeypatch.setattr(report, "run_benchmark", run_benchmark)
    assert report.main(["--trainer-only", "--out", str(out)]) == 0
    text = out.read_text()
    assert ran == [(name, "trainer") for name in TRAINER_RUNS]
    assert "old figures" not in text and "Measured on their own (`bench/report.py --trainer-only`)" in text
    assert text.index("## Machine") < text.index(TRAINER_TITLE) < text.index("## Data-parallel")
    assert "kept\n" in text and "kept too" in text
