"""The Trainer's logged grad_norm for one optimizer step over the same 16 samples, split 16 x 1, 4 x 4 and 2 x 8.

Source of the figures in content/guides/loss-normalization-variable-length (section trainer-loss-history).
Tiny models (Llama and BERT: 2 layers, hidden size 32; T5: one layer each side, d_model 32; CPU, no dropout,
no padding), the same weights and samples for each split; a right Trainer logs the same grad_norm for every split.

In transformers 5.24.0, `Trainer.__init__` decides that a model "accepts loss kwargs" when its forward
takes **kwargs (or from its `accepts_loss_kwargs` attribute), and `training_step` then leaves its loss
undivided, trusting the model to have divided by `num_items_in_batch`. The shared sequence- and
token-classification heads (GenericForSequenceClassification, GenericForTokenClassification in
modeling_layers.py, used by Llama-type models from 4.54.0 on) take **kwargs but never pass the count to
their loss, so each micro-batch's mean loss reaches backward() N times too large. From 5.0.0 nearly every
model's forward takes **kwargs (BERT's took none up to 4.57.6), so every head whose loss ignores the count is
N times too large: classification heads, masked LMs (BertForMaskedLM), encoder-decoders (T5, BART, Whisper...).
The Llama causal LM divides by the count and is right. Setting `model.accepts_loss_kwargs = False` makes the
Trainer divide each micro-batch's mean by N (exact only when every micro-batch scores as many items).

The run exits non-zero if a figure moves by more than 0.1 % from EXPECTED below: rerun it on every upgrade.

Run with transformers 5.24.0, accelerate 1.15.0 and torch 2.13.0 (CPU): python trainer_heads_grad_norm.py
Measured:

    head                              16 x 1   4 x 4    2 x 8
    LlamaForSequenceClassification    1.9647   7.8588   15.7177
    LlamaForTokenClassification       0.7266   2.9065   5.8130
    LlamaForCausalLM                  0.8446   0.8446   0.8446
    BertForSequenceClassification     0.4183   1.6731   3.3462
    BertForMaskedLM                   1.9166   7.7087   15.5480
    T5ForConditionalGeneration        1.2160   4.8638   9.7276
    LlamaForSequenceClassification,
      accepts_loss_kwargs = False     1.9647   1.9647   1.9647
"""

import json
import tempfile
import warnings

import torch
import transformers
from transformers import (
    BertConfig,
    BertForMaskedLM,
    BertForSequenceClassification,
    LlamaConfig,
    LlamaForCausalLM,
    LlamaForSequenceClassification,
    LlamaForTokenClassification,
    T5Config,
    T5ForConditionalGeneration,
    Trainer,
    TrainerCallback,
    TrainingArguments,
)

warnings.filterwarnings("ignore")
transformers.logging.set_verbosity_error()
LENGTH, VOCAB, SAMPLES = 8, 64, 16
generator = torch.Generator().manual_seed(1)
IDS = torch.randint(1, VOCAB, (SAMPLES, LENGTH), generator=generator)  # no padding token (0) anywhere
CLASS_LABELS = torch.randint(0, 3, (SAMPLES,), generator=generator)
TOKEN_LABELS = torch.randint(0, 3, (SAMPLES, LENGTH), generator=generator)
# Masked LM: two scored positions per row (the rest -100), drawn from a second generator.
mask_generator = torch.Generator().manual_seed(2)
MLM_LABELS = torch.full_like(IDS, -100)
MASKED = torch.randint(0, LENGTH, (SAMPLES, 2), generator=mask_generator)
for row in range(SAMPLES):
    MLM_LABELS[row, MASKED[row]] = IDS[row, MASKED[row]]

HEADS = {
    "LlamaForSequenceClassification": (LlamaForSequenceClassification, lambda i: CLASS_LABELS[i]),
    "LlamaForTokenClassification": (LlamaForTokenClassification, lambda i: TOKEN_LABELS[i]),
    "LlamaForCausalLM": (LlamaForCausalLM, lambda i: IDS[i]),
    "BertForSequenceClassification": (BertForSequenceClassification, lambda i: CLASS_LABELS[i]),
    "BertForMaskedLM": (BertForMaskedLM, lambda i: MLM_LABELS[i]),
    "T5ForConditionalGeneration": (T5ForConditionalGeneration, lambda i: IDS[i].flip(0)),
}


class KeepLogs(TrainerCallback):
    def __init__(self):
        self.logs = []

    def on_log(self, args, state, control, logs=None, **kwargs):
        if logs and "grad_norm" in logs:
            self.logs.append(logs)


def grad_norm(head, micro, n, accepts_loss_kwargs=None):
    """The logged grad_norm of one optimizer step over the 16 samples in n micro-batches of `micro`."""
    model_class, label = HEADS[head]
    torch.manual_seed(0)
    sizes = dict(vocab_size=VOCAB, hidden_size=32, intermediate_size=64, num_hidden_layers=2, num_attention_heads=4)
    sizes.update(max_position_embeddings=32, pad_token_id=0, num_labels=3)
    if model_class in (BertForSequenceClassification, BertForMaskedLM):  # no dropout: same masks for every split
        config = BertConfig(**sizes, hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0)
    elif model_class is T5ForConditionalGeneration:  # one layer each side, no dropout
        config = T5Config(vocab_size=VOCAB, d_model=32, d_kv=8, d_ff=64, num_layers=1, num_heads=4, dropout_rate=0.0)
        config.update(dict(pad_token_id=0, decoder_start_token_id=0))
    else:
        config = LlamaConfig(**sizes, num_key_value_heads=4)
    model = model_class(config)
    if accepts_loss_kwargs is not None:
        model.accepts_loss_kwargs = accepts_loss_kwargs
    rows = [{"input_ids": IDS[i], "labels": label(i)} for i in range(SAMPLES)]
    keep = KeepLogs()
    with tempfile.TemporaryDirectory() as out:
        args = TrainingArguments(
            out,
            per_device_train_batch_size=micro,
            gradient_accumulation_steps=n,
            max_steps=1,
            logging_steps=1,
            learning_rate=1e-3,
            report_to=[],
            use_cpu=True,
            save_strategy="no",
            seed=0,
            disable_tqdm=True,
        )
        Trainer(model=model, args=args, train_dataset=rows, callbacks=[keep]).train()
    return round(float(keep.logs[0]["grad_norm"]), 4)


# The figures the guides quote (transformers 5.24.0); the run fails if one of them moves.
EXPECTED = {
    "LlamaForSequenceClassification": [1.9647, 7.8588, 15.7177],
    "LlamaForTokenClassification": [0.7266, 2.9065, 5.8130],
    "LlamaForCausalLM": [0.8446, 0.8446, 0.8446],
    "BertForSequenceClassification": [0.4183, 1.6731, 3.3462],
    "BertForMaskedLM": [1.9166, 7.7087, 15.5480],
    "T5ForConditionalGeneration": [1.2160, 4.8638, 9.7276],
    "LlamaForSequenceClassification, accepts_loss_kwargs=False": [1.9647, 1.9647, 1.9647],
}


if __name__ == "__main__":
    splits = [(16, 1), (4, 4), (2, 8)]
    result = {head: [grad_norm(head, micro, n) for micro, n in splits] for head in HEADS}
    result["LlamaForSequenceClassification, accepts_loss_kwargs=False"] = [
        grad_norm("LlamaForSequenceClassification", micro, n, accepts_loss_kwargs=False) for micro, n in splits
    ]
    print(transformers.__version__, json.dumps(result))
    moved = {
        head: (figures, EXPECTED[head])
        for head, figures in result.items()
        if any(abs(got - want) > 1e-3 * want for got, want in zip(figures, EXPECTED[head], strict=True))
    }
    if moved:
        raise SystemExit(f"figures moved (got, expected): {json.dumps(moved)}")
    print("all figures as expected")
