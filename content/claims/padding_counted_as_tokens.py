"""Claim of loss-normalization-variable-length's `bug-padding-counted-as-tokens`.

Dividing the window's summed token loss by every label position (padding and masked prompts
included) instead of the scored tokens leaves the direction right but makes every gradient too
small, by the window's share of scored positions, so windows with more padding get smaller updates.
Counting only labels that are not -100 gives the full batch's token-mean gradient.
"""

import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)
V, T, N = 40, 12, 4  # vocabulary, padded length, micro-batches per window
model = nn.Sequential(nn.Embedding(V, 16), nn.Linear(16, V))


def make_window(max_scored):
    window = []
    for _ in range(N):
        ids, labels = torch.randint(0, V, (2, T)), torch.randint(0, V, (2, T))
        scored = torch.randint(1, max_scored + 1, (2, 1))
        labels[torch.arange(T) >= scored] = -100  # padding and masked prompts
        window.append({"input_ids": ids, "labels": labels})
    return window


def summed_loss(batch):
    logits = model(batch["input_ids"])
    return F.cross_entropy(logits.flatten(0, 1), batch["labels"].flatten(), ignore_index=-100, reduction="sum")


def window_gradient(window, n):
    model.zero_grad(set_to_none=True)
    for batch in window:
        (summed_loss(batch) / n).backward()
    return torch.cat([p.grad.flatten() for p in model.parameters()])


def full_batch_gradient(window):
    ids = torch.cat([b["input_ids"] for b in window])
    labels = torch.cat([b["labels"] for b in window])
    model.zero_grad(set_to_none=True)
    F.cross_entropy(model(ids).flatten(0, 1), labels.flatten(), ignore_index=-100).backward()
    return torch.cat([p.grad.flatten() for p in model.parameters()])


shrink = []
for max_scored in (T, 4):  # a lightly padded window, then a heavily padded one
    window = make_window(max_scored)
    positions = sum(b["labels"].numel() for b in window)  # the buggy line 2
    scored = sum((b["labels"] != -100).sum() for b in window)  # the fix
    fixed = window_gradient(window, scored)
    buggy = window_gradient(window, positions)
    # The fix is the full batch's token mean.
    torch.testing.assert_close(fixed, full_batch_gradient(window))
    # The bug keeps the direction and shrinks the gradient by scored / positions, exactly.
    torch.testing.assert_close(buggy, fixed * (scored / positions))
    assert scored < positions
    shrink.append((scored / positions).item())

# More padding, smaller update.
assert shrink[1] < shrink[0] < 1
print(f"gradient scaled by {shrink[0]:.2f} (light padding) and {shrink[1]:.2f} (heavy padding)")
