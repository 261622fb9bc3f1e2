"""Claim of the exam's `bug-mean-of-micro-batch-means`.

On variable-length sequences, each micro-batch's own token mean divided by N (line 5 of the
question) gives every micro-batch the same total weight, so a token of a short micro-batch weighs
more than one of a long micro-batch, and the gradient differs from the full batch's. Summing the
token losses and dividing by the window's count (line 2's n_tokens) gives every token 1/n_tokens and
the full-batch gradient.
"""

import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)
V, T, N = 40, 16, 4
model = nn.Sequential(nn.Embedding(V, 16), nn.Linear(16, V))
scored = [[2, 3], [14, 16], [5, 1], [9, 12]]  # scored tokens of each sequence, by micro-batch
window = []
for counts in scored:
    ids, labels = torch.randint(0, V, (2, T)), torch.randint(0, V, (2, T))
    labels[torch.arange(T) >= torch.tensor(counts).unsqueeze(1)] = -100
    window.append({"input_ids": ids, "labels": labels})


def token_loss(batch, reduction):
    logits = model(batch["input_ids"])
    return F.cross_entropy(logits.flatten(0, 1), batch["labels"].flatten(), ignore_index=-100, reduction=reduction)


def gradient(run):
    model.zero_grad(set_to_none=True)
    run()
    return torch.cat([p.grad.flatten() for p in model.parameters()])


n_tokens = sum((b["labels"] != -100).sum() for b in window)  # line 2


def buggy():  # line 5
    for b in window:
        (token_loss(b, "mean") / N).backward()


def fixed():
    for b in window:
        (token_loss(b, "sum") / n_tokens).backward()


full_batch = {key: torch.cat([b[key] for b in window]) for key in ("input_ids", "labels")}
full = gradient(lambda: token_loss(full_batch, "mean").backward())
torch.testing.assert_close(gradient(fixed), full)
gap = ((gradient(buggy) - full).norm() / full.norm()).item()
assert gap > 0.05

# Weight of one token: 1 / (N n_k) under the bug, 1 / n_tokens in the full batch.
per_micro = torch.tensor([sum(c) for c in scored], dtype=torch.float)
weight_bug, weight_full = 1 / (N * per_micro), 1 / n_tokens
shortest, longest = per_micro.argmin(), per_micro.argmax()
assert weight_bug[shortest] > weight_full > weight_bug[longest]
print(
    f"gradient off by {gap:.0%}; a token weighs {weight_bug[shortest]:.3f} in the shortest micro-batch, "
    f"{weight_bug[longest]:.3f} in the longest, {weight_full:.3f} in the full batch"
)
