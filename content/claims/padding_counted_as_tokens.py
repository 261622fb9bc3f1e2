"""Claim: dividing the window's summed token loss by the number of label positions
(`labels.numel()`, padding and masked prompts included) instead of the scored tokens
(`labels != -100`) makes every gradient too small by the factor scored / positions, a factor that
changes with each window's padding, so windows with more padding get smaller updates. Counting the
scored tokens gives the full batch's gradient: every scored token weighs 1/n.

Used by: guide quiz `bug-padding-counted-as-tokens` (loss-normalization-variable-length), final exam
`x-token-normalization-practice`.
"""

import torch
import torch.nn.functional as F
from torch import nn

VOCAB, N, WIDTH = 5, 2, 6
torch.manual_seed(0)


def make_window(masks: list[list[list[int]]]) -> list[dict]:
    """Micro-batches of labels (-100 where the mask is 0) and token ids, one id per position."""
    window, next_id = [], 0
    for mask in masks:
        mask = torch.tensor(mask, dtype=torch.bool)
        ids = torch.arange(next_id, next_id + mask.numel()).view(mask.shape)
        next_id += mask.numel()
        window.append({"input_ids": ids, "labels": torch.randint(0, VOCAB, mask.shape).masked_fill(~mask, -100)})
    return window


LITTLE_PADDING = make_window([[[1, 1, 1, 1, 1, 1], [1, 1, 1, 1, 1, 0]], [[0, 1, 1, 1, 1, 1], [1, 1, 1, 1, 1, 1]]])
MUCH_PADDING = make_window([[[1, 1, 1, 0, 0, 0], [0, 0, 1, 1, 0, 0]], [[1, 1, 1, 1, 1, 1], [0, 1, 0, 0, 0, 0]]])
START = nn.Linear(3, VOCAB).double()  # logits from a fixed random feature of each token id
FEATURES = torch.randn(2 * N * WIDTH, 3, dtype=torch.float64)


def model(input_ids):
    return START(FEATURES[input_ids])


def run(window, count_scored_only: bool) -> list[torch.Tensor]:
    """The question's lines 2-6; the gradient `.grad` holds after the window."""
    START.zero_grad(set_to_none=True)
    if count_scored_only:
        n = sum((b["labels"] != -100).sum() for b in window)
    else:
        n = sum(b["labels"].numel() for b in window)
    for b in window:
        logits = model(b["input_ids"])
        loss = F.cross_entropy(logits.flatten(0, 1), b["labels"].flatten(), ignore_index=-100, reduction="sum") / n
        loss.backward()
    return [p.grad.clone() for p in START.parameters()]


def full_batch(window) -> list[torch.Tensor]:
    START.zero_grad(set_to_none=True)
    ids = torch.cat([b["input_ids"] for b in window])
    labels = torch.cat([b["labels"] for b in window])
    F.cross_entropy(model(ids).flatten(0, 1), labels.flatten(), ignore_index=-100).backward()
    return [p.grad.clone() for p in START.parameters()]


ratios = []
for window in (LITTLE_PADDING, MUCH_PADDING):
    positions = sum(b["labels"].numel() for b in window)
    scored = sum((b["labels"] != -100).sum().item() for b in window)
    fixed, buggy, reference = run(window, True), run(window, False), full_batch(window)
    for f, b, r in zip(fixed, buggy, reference, strict=True):
        assert torch.allclose(f, r, rtol=1e-12, atol=1e-15)  # the fix is the full batch's gradient
        assert torch.allclose(b, f * scored / positions, rtol=1e-12, atol=1e-15)  # too small by scored/positions
    ratios.append(scored / positions)

little, much = ratios
assert much < little < 1  # more padding, smaller update
print(f"gradient scaled by {little:.3f} with little padding, {much:.3f} with much padding")
