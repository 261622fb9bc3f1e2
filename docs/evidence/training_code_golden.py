"""Trains the same eleven small runs with the training code of one checkout and writes every number
they produce (each step's loss and gradient norm, validation, the accumulated gradient's distance
from the full batch's, the activation peak) to a JSON file. Two checkouts whose files are
byte-identical trained identically: labs/migrations/0005 relies on it to keep results stored by
main at edfbb03 (run on 2026-12-07: edfbb03 and 51faa7e gave byte-identical files).

    git worktree add --detach /tmp/old edfbb03 && cp docs/evidence/training_code_golden.py /tmp/golden.py
    (cd /tmp/old && PYTHONPATH=. "$OLDPWD/.venv/bin/python" /tmp/golden.py /tmp/old.json)
    PYTHONPATH=. .venv/bin/python docs/evidence/training_code_golden.py /tmp/new.json
    cmp /tmp/old.json /tmp/new.json
"""

import json
import sys

from labs.training.config import validate_config
from labs.training.loop import run_experiment

BASE = {
    "task": "digits-cnn",
    "norm": "batch",
    "effective_batch_size": 32,
    "accumulation_steps": 4,
    "loss_scaling": "mean",
    "optimizer": "sgd",
    "learning_rate": 0.05,
    "steps": 4,
    "seed": 3,
}


def cases() -> list[dict]:
    """Three tasks by three loss scalings, and two runs in two processes (DDP's two sync modes)."""
    found = [
        {**BASE, "task": task, "norm": norm, "loss_scaling": scaling}
        for task, norm in [("digits-cnn", "batch"), ("digits-mlp", "layer"), ("tiny-lm", "layer")]
        for scaling in ["mean", "sum", "mean_of_micro_means"]
    ]
    found.append({**BASE, "task": "tiny-lm", "norm": "rms", "processes": 2, "loss_scaling": "mean_of_rank_means"})
    found.append({**BASE, "task": "tiny-lm", "norm": "layer", "processes": 2, "sync": "every_micro", "grad_clip": 0.5})
    return found


def main(path: str) -> None:
    out = {}
    for i, data in enumerate(cases()):
        config, errors = validate_config(data)
        assert config is not None, errors
        result = run_experiment(config, device="cpu", timeout_seconds=900).to_dict()
        out[i] = {
            "curve": [(point["loss"], point["grad_norm"]) for point in result["curve"]],
            "val": result["validation"],
            "err": result["grad_equivalence_error"],
            "peak": result["peak_activation_bytes"],
        }
    with open(path, "w") as file:
        json.dump(out, file, sort_keys=True)
    print("runs written:", len(out))


if __name__ == "__main__":
    main(sys.argv[1])
