"""Claim: from E|G_B|^2 = |G|^2 + tr(S)/B measured at two batch sizes, s - g = tr(S) (1/b_small -
1/b_big), so tr(S) is (s - g) / (1/b_small - 1/b_big); dividing by (b_small - b_big) instead gives a
negative number of the wrong size. The |G|^2 line, (b_big g - b_small s) / (b_big - b_small), is right.

Checked twice: with exact expected squared norms, and with squared norms of real mini-batch
gradients (per-example gradients of a least-squares model, batches drawn with replacement), whose
true |G|^2 and tr(S) are computed from the data. Used by: final exam `bug-noise-scale-estimator`.
"""

import torch


def b_simple(sq_small, sq_big, b_small, b_big, fixed: bool):
    s = sum(sq_small) / len(sq_small)
    g = sum(sq_big) / len(sq_big)
    g_squared = (b_big * g - b_small * s) / (b_big - b_small)
    if fixed:
        trace_sigma = (s - g) / (1 / b_small - 1 / b_big)
    else:
        trace_sigma = (s - g) / (b_small - b_big)
    return trace_sigma / g_squared


# Exact expectations: the fix recovers tr(S)/|G|^2, the buggy line gives a negative number.
G2, TRACE, B_SMALL, B_BIG = 2.0, 50.0, 8, 128
s, g = G2 + TRACE / B_SMALL, G2 + TRACE / B_BIG
assert abs(b_simple([s], [g], B_SMALL, B_BIG, fixed=True) - TRACE / G2) < 1e-9
assert abs((B_BIG * g - B_SMALL * s) / (B_BIG - B_SMALL) - G2) < 1e-12  # line 4
buggy = b_simple([s], [g], B_SMALL, B_BIG, fixed=False)
assert buggy < 0 and abs(buggy) < 0.05 * TRACE / G2, buggy

# Real gradients: per-example gradients of 0.5 (w.x - y)^2 on a fixed data set, at fixed w.
torch.manual_seed(0)
n, d = 2000, 10
x = torch.randn(n, d, dtype=torch.float64)
y = x @ torch.randn(d, dtype=torch.float64) + torch.randn(n, dtype=torch.float64)
w = torch.zeros(d, dtype=torch.float64)
per_example = (x @ w - y)[:, None] * x  # gradient of each example's loss
G = per_example.mean(0)
true_trace = ((per_example - G) ** 2).sum(1).mean().item()  # tr of the per-example covariance
true_ratio = true_trace / G.pow(2).sum().item()


def squared_norms(batch: int, draws: int) -> list[float]:
    rows = torch.randint(0, n, (draws, batch))
    return per_example[rows].mean(1).pow(2).sum(1).tolist()


estimate = b_simple(squared_norms(B_SMALL, 5000), squared_norms(B_BIG, 5000), B_SMALL, B_BIG, fixed=True)
assert abs(estimate / true_ratio - 1) < 0.1, (estimate, true_ratio)
buggy = b_simple(squared_norms(B_SMALL, 5000), squared_norms(B_BIG, 5000), B_SMALL, B_BIG, fixed=False)
assert buggy < 0, buggy
print(f"B_simple: true {true_ratio:.2f}, fixed estimate {estimate:.2f}, buggy {buggy:.3f}")
