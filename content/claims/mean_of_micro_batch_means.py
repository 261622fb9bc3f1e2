"""Claim: with sequences of different lengths, `cross_entropy(...)` (a mean over each micro-batch's
own scored tokens) divided by N is a mean of means: a token of micro-batch i weighs 1/(N * n_i), so a
token of a short micro-batch counts for more, and the gradient is not the full batch's. Summing the
token losses and dividing by the window's scored-token count weighs every token 1/n_tokens, as the
full batch does.

Each token gets its own row of logits (an embedding table that starts at zero), so the gradient of
that row is the token's weight times the same vector: the weights can be read off exactly.
Used by: final exam `bug-mean-of-micro-batch-means`; loss-normalization-variable-length quiz
`what-the-fix-does`.
"""

import torch
import torch.nn.functional as F
from torch import nn

VOCAB, N = 5, 3
torch.manual_seed(0)
# Three micro-batches of 2 sequences each, padded to their own length; -100 marks padding and prompts.
SCORED = [[[1, 1, 1, 1, 1, 1, 1, 1], [0, 0, 1, 1, 1, 1, 1, 0]], [[1, 1, 0, 0], [0, 1, 0, 0]], [[1, 1, 1], [1, 1, 1]]]
window, next_id = [], 0
for mask in SCORED:
    mask = torch.tensor(mask, dtype=torch.bool)
    ids = torch.arange(next_id, next_id + mask.numel()).view(mask.shape)  # one id, one logits row per token
    next_id += mask.numel()
    labels = torch.randint(0, VOCAB, mask.shape).masked_fill(~mask, -100)
    window.append({"input_ids": ids, "labels": labels})


def fresh_model() -> nn.Embedding:
    model = nn.Embedding(next_id, VOCAB).double()
    nn.init.zeros_(model.weight)
    return model


def buggy_loop(model):  # the question's lines 2-6
    for b in window:
        logits = model(b["input_ids"])
        loss = F.cross_entropy(logits.flatten(0, 1), b["labels"].flatten(), ignore_index=-100) / N
        loss.backward()


def fixed_loop(model):
    n_tokens = sum((b["labels"] != -100).sum() for b in window)
    for b in window:
        logits = model(b["input_ids"])
        loss = F.cross_entropy(logits.flatten(0, 1), b["labels"].flatten(), ignore_index=-100, reduction="sum")
        (loss / n_tokens).backward()


def token_weights(loop) -> torch.Tensor:
    """Each token's weight in the loss the loop differentiates (0 for the -100 positions)."""
    model = fresh_model()
    loop(model)
    one_token = torch.full((VOCAB,), 1 / VOCAB, dtype=torch.float64)
    one_token[0] -= 1  # d(cross-entropy)/d(logits) at zero logits for label 0: same norm for any label
    return model.weight.grad.norm(dim=1) / one_token.norm()


def full_batch_gradient() -> torch.Tensor:
    """The whole window as one batch, padded to one length: the mean over all scored tokens."""
    width = max(b["labels"].shape[1] for b in window)
    ids = torch.cat([F.pad(b["input_ids"], (0, width - b["input_ids"].shape[1])) for b in window])
    labels = torch.cat([F.pad(b["labels"], (0, width - b["labels"].shape[1]), value=-100) for b in window])
    model = fresh_model()
    F.cross_entropy(model(ids).flatten(0, 1), labels.flatten(), ignore_index=-100).backward()
    return model.weight.grad


scored = [(b["labels"] != -100).sum().item() for b in window]  # n_i: 13, 3 and 6 tokens
n_tokens = sum(scored)
is_scored = torch.cat([(b["labels"] != -100).flatten() for b in window])
micro_batch_of = torch.cat([torch.full((b["labels"].numel(),), i) for i, b in enumerate(window)])

buggy = token_weights(buggy_loop)
expected = torch.tensor([1 / (N * scored[i]) for i in micro_batch_of.tolist()], dtype=torch.float64)
assert torch.allclose(buggy, expected * is_scored, rtol=1e-12, atol=1e-15)
short, long = scored.index(min(scored)), scored.index(max(scored))
assert 1 / (N * scored[short]) > 1 / (N * scored[long])  # a short micro-batch's token weighs more

fixed = token_weights(fixed_loop)
assert torch.allclose(fixed, is_scored.double() / n_tokens, rtol=1e-12, atol=1e-15)

model = fresh_model()
fixed_loop(model)
assert torch.allclose(model.weight.grad, full_batch_gradient(), rtol=1e-12, atol=1e-15)
model = fresh_model()
buggy_loop(model)
assert not torch.allclose(model.weight.grad, full_batch_gradient(), rtol=1e-2)
print(
    f"scored tokens {scored}: buggy weights 1/(N n_i) = {[round(1 / (N * n), 4) for n in scored]}, "
    f"fixed 1/{n_tokens} = {1 / n_tokens:.4f}"
)
