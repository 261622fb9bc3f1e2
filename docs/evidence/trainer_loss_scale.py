"""How much larger the loss given to backward() is at N = 2 and N = 4 than at N = 1, per Transformers release.

Source of the table in content/guides/loss-normalization-variable-length (section trainer-loss-history).
For one optimizer step over the same four sequences, split into N micro-batches, it prints the Trainer's
logged loss and logged grad_norm divided by their values at N = 1, for three cases:

- llama: a model whose forward accepts loss keyword arguments (it can receive num_items_in_batch);
- nokwargs: a model whose forward does not;
- nolabels: a Trainer subclass that computes its own loss from batches without a "labels" key
  (as TRL's DPO trainer does), on a model that accepts loss keyword arguments;
- seqcls: LlamaForSequenceClassification, whose forward takes **kwargs from 4.54.0 on (the shared
  GenericForSequenceClassification head) but never passes num_items_in_batch to its loss;
- ownloss: a Trainer subclass that computes its own per-micro-batch mean loss from labelled batches and
  ignores num_items_in_batch, on a model that accepts loss keyword arguments (a compute_loss_func that
  ignores the count is treated the same way).

A ratio of 1 is right; N means the gradient (grad_norm) or the logged loss is N times too large.
Run it with the installed release, or with an older one unpacked from its wheel, e.g.:

    pip download --no-deps transformers==4.47.1 -d /tmp/w && unzip -q /tmp/w/*.whl -d /tmp/t
    PYTHONPATH=/tmp/t python docs/evidence/trainer_loss_scale.py

(an older release may refuse newer tokenizers at import: empty `pkgs_to_check_at_runtime` in its
transformers/dependency_versions_check.py; some need `requests` or `httpx` installed). Measured on the CPU
with torch 2.13.0 and accelerate 1.15.0, each cell "logged loss ratio / grad_norm ratio" at N = 2 and at N = 4:

    release   llama         nokwargs      nolabels      seqcls        ownloss
    4.46.0    1/1   1/1     2/2   4/4     2/2   4/4     2/2   4/4     2/2   4/4
    4.46.1    1/1   1/1     2/2   4/4     2/2   4/4
    4.46.2    1/1   1/1     1/2   1/4     1/2   1/4     1/2   1/4     2/2   4/4
    4.46.3    1/1   1/1     1/2   1/4     1/2   1/4
    4.47.0    2/2   4/4     1/2   1/4     1/2   1/4     1/2   1/4     2/2   4/4
    4.47.1    1/1   1/1     2/2   4/4     1/2   1/4     2/2   4/4     2/2   4/4
    4.48.0    2/2   4/4     1/1   1/1     1/1   1/1     1/1   1/1     2/2   4/4
    4.48.1    1/1   1/1     1/1   1/1     2/2   4/4     1/1   1/1     2/2   4/4
    4.49.0    1/1   1/1     1/1   1/1     2/2   4/4
    4.51.3    1/1   1/1     1/1   1/1     2/2   4/4
    4.52.4    1/1   1/1     1/1   1/1     2/2   4/4     1/1   1/1     2/2   4/4
    4.53.0    1/1   1/1     1/1   1/1     1/1   1/1     1/1   1/1     2/2   4/4
    4.54.0    1/1   1/1     1/1   1/1     1/1   1/1     2/2   4/4     2/2   4/4
    4.55.0    1/1   1/1     1/1   1/1     1/1   1/1
    4.57.6    1/1   1/1     1/1   1/1     1/1   1/1     2/2   4/4     2/2   4/4
    5.0.0     1/1   1/1     1/1   1/1     1/1   1/1     2/2   4/4     2/2   4/4
    5.18.0    1/1   1/1     1/1   1/1     1/1   1/1     2/2   4/4     2/2   4/4
    5.19.0    1/1   1/1     1/1   1/1     1/1   1/1     2/2   4/4     2/2   4/4
    5.24.0    1/1   1/1     1/1   1/1     1/1   1/1     2/2   4/4     2/2   4/4

(seqcls and ownloss were added for issue 40; releases measured before it have no figures there.) In 5.24.0
both come back to 1/1 at N = 2 and 4 with their fixes: `model.accepts_loss_kwargs = False` on the
sequence-classification head, and `loss_is_scaled_for_ga = False` (an attribute of Trainer from 5.19.0 on)
on the subclass; a `compute_loss_func` that returns a per-micro-batch mean is N times too large the same way
(2/2, 4/4) and right with `loss_is_scaled_for_ga = False`.
"""

import json
import tempfile
import warnings

import torch
import transformers
from torch import nn
from transformers import (
    LlamaConfig,
    LlamaForCausalLM,
    LlamaForSequenceClassification,
    Trainer,
    TrainerCallback,
    TrainingArguments,
)

warnings.filterwarnings("ignore")
transformers.logging.set_verbosity_error()
VOCAB, LENGTH = 64, 16


class NoKwargsLM(nn.Module):
    """A model whose forward takes no **kwargs: the Trainer cannot pass it num_items_in_batch."""

    def __init__(self):
        super().__init__()
        self.embed, self.head = nn.Embedding(VOCAB, 32), nn.Linear(32, VOCAB)

    def forward(self, input_ids, labels=None):
        logits = self.head(self.embed(input_ids))
        loss = nn.functional.cross_entropy(logits[:, :-1].flatten(0, 1), labels[:, 1:].flatten(), ignore_index=-100)
        return {"loss": loss, "logits": logits}


class NoLabelsTrainer(Trainer):
    """Computes its own loss from batches without a 'labels' key, so num_items_in_batch is None."""

    def compute_loss(self, model, inputs, return_outputs=False, num_items_in_batch=None):
        ids = inputs["ids"]
        logits = model(input_ids=ids).logits
        return nn.functional.cross_entropy(logits[:, :-1].flatten(0, 1), ids[:, 1:].flatten())


class OwnLossTrainer(Trainer):
    """Computes a per-micro-batch mean loss from labelled batches and ignores num_items_in_batch."""

    def compute_loss(self, model, inputs, return_outputs=False, num_items_in_batch=None):
        ids = inputs["input_ids"]
        logits = model(input_ids=ids).logits
        return nn.functional.cross_entropy(logits[:, :-1].flatten(0, 1), inputs["labels"][:, 1:].flatten())


class KeepLogs(TrainerCallback):
    def __init__(self):
        self.logs = []

    def on_log(self, args, state, control, logs=None, **kwargs):
        if logs and "loss" in logs:
            self.logs.append(logs)


def make_model(case):
    torch.manual_seed(0)
    if case == "nokwargs":
        return NoKwargsLM()
    config = LlamaConfig(
        vocab_size=VOCAB,
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=1,
        num_attention_heads=2,
        num_key_value_heads=2,
        max_position_embeddings=LENGTH,
        pad_token_id=0,
        num_labels=3,
    )
    if case == "seqcls":
        return LlamaForSequenceClassification(config)
    return LlamaForCausalLM(config)


def first_step(case, n):
    """Logged loss and grad_norm of one optimizer step over 4 sequences in n micro-batches."""
    ids = torch.randint(0, VOCAB, (4, LENGTH), generator=torch.Generator().manual_seed(1))
    if case == "nolabels":
        rows = [{"ids": row} for row in ids]
    elif case == "seqcls":
        ids[ids == 0] = 1  # no padding token, so every row is classified from its last position
        rows = [{"input_ids": row, "labels": label} for row, label in zip(ids, torch.tensor([0, 1, 2, 1]), strict=True)]
    else:
        rows = [{"input_ids": row, "labels": row} for row in ids]
    keep = KeepLogs()
    with tempfile.TemporaryDirectory() as out:
        args = TrainingArguments(
            out,
            per_device_train_batch_size=4 // n,
            gradient_accumulation_steps=n,
            max_steps=1,
            logging_steps=1,
            learning_rate=0.0,
            report_to=[],
            use_cpu=True,
            save_strategy="no",
            remove_unused_columns=False,
            seed=0,
        )
        trainer_class = {"nolabels": NoLabelsTrainer, "ownloss": OwnLossTrainer}.get(case, Trainer)
        trainer_class(model=make_model(case), args=args, train_dataset=rows, callbacks=[keep]).train()
    return keep.logs[0]["loss"], float(keep.logs[0]["grad_norm"])


if __name__ == "__main__":
    result = {}
    for case in ("llama", "nokwargs", "nolabels", "seqcls", "ownloss"):
        loss_1, norm_1 = first_step(case, 1)
        result[case] = {}
        for n in (2, 4):
            loss_n, norm_n = first_step(case, n)
            result[case][n] = [round(loss_n / loss_1, 2), round(norm_n / norm_1, 2)]
    print(transformers.__version__, json.dumps(result))
