"""A training process made ready at start (labs.training.process) has loaded everything a first
run would: any run after it imports no module, whatever its task, optimizer or precision. Checked
in a fresh interpreter (this one has loaded everything already), without timing anything."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # bin/unit leaves it out (tests/conftest.py)

ROOT = Path(__file__).resolve().parents[3]
PROBE = """
import json, sys
from labs.training.process import training_process_prepare

prepared = training_process_prepare(cuda=True)  # a GPU worker's call; this machine may have none
import torch
from labs.training.config import RunConfig
from labs.training.loop import run_experiment

base = dict(norm="layer", effective_batch_size=8, accumulation_steps=2, loss_scaling="mean",
            learning_rate=0.01, steps=1, seed=0)
loaded = {}
for task, optimizer, precision in [("digits-mlp", "sgd", "fp32"), ("digits-cnn", "adamw", "bf16"),
                                   ("tiny-lm", "adamw", "fp32"), ("guides-lm", "sgd", "fp32")]:
    before = set(sys.modules)
    config = RunConfig(task=task, optimizer=optimizer, precision=precision, **base)
    run_experiment(config, device="cpu", text_dir="content/guides")
    loaded[task] = sorted(set(sys.modules) - before)
print(json.dumps({"prepared": prepared, "loaded": loaded, "cuda_available": torch.cuda.is_available()}))
"""


def test_after_the_start_a_first_run_of_any_kind_imports_nothing():
    env = {"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin", "OMP_NUM_THREADS": "1"}
    done = subprocess.run(
        [sys.executable, "-c", PROBE], cwd=ROOT, env=env, capture_output=True, text=True, timeout=600, check=True
    )
    found = json.loads(done.stdout.strip().splitlines()[-1])
    assert found["loaded"] == {"digits-mlp": [], "digits-cnn": [], "tiny-lm": [], "guides-lm": []}
    prepared = found["prepared"]
    assert prepared["torch_inherited"] is False and prepared["cuda_inherited"] is False
    assert prepared["cuda"] is found["cuda_available"]  # CUDA started in this process, if there is one
