"""Claim: clip_grad_norm_ called after every backward of a window clips the running partial sum in .grad,
not each micro-batch's own gradient. With a threshold that never fires it gives exactly the gradient of one
clip after the last backward; with one that fires on an early partial sum it shrinks the micro-batches summed
so far, so the final gradient points another way, even though the last call still caps its norm.

Used by: the-accumulation-loop quiz `bug-clip-every-micro-batch`, final exam `clipping-micro-batch-gradients`.
"""

import torch
from torch import nn

torch.manual_seed(0)
N = 4
micro_batches = [(torch.randn(8, 6), torch.randn(8, 1)) for _ in range(N)]
loss_fn = nn.MSELoss()


def fresh_model():
    torch.manual_seed(1)
    return nn.Sequential(nn.Linear(6, 16), nn.Tanh(), nn.Linear(16, 1))


def flat_grad(model):
    return torch.cat([p.grad.flatten() for p in model.parameters()])


def clip_once(max_norm):
    """The right loop: N backward passes, then one clip on the accumulated gradient."""
    model = fresh_model()
    for x, y in micro_batches:
        (loss_fn(model(x), y) / N).backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm)
    return flat_grad(model)


def clip_every_micro_batch(max_norm):
    """The faulty loop: a clip after every backward. Returns the gradient and the norm each call saw."""
    model = fresh_model()
    seen = []
    for x, y in micro_batches:
        (loss_fn(model(x), y) / N).backward()
        seen.append(float(torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm)))
    return flat_grad(model), seen


def own_gradients():
    """Each micro-batch's own gradient (loss / N), computed alone."""
    grads = []
    for x, y in micro_batches:
        model = fresh_model()
        (loss_fn(model(x), y) / N).backward()
        grads.append(flat_grad(model))
    return grads


own = own_gradients()
unclipped = torch.stack(own).sum(0)
full_norm = unclipped.norm().item()

# Each call sees the running sum: the k-th norm is that of the first k micro-batches together.
_, seen = clip_every_micro_batch(max_norm=1e9)
for k, norm in enumerate(seen, start=1):
    assert abs(norm - torch.stack(own[:k]).sum(0).norm().item()) < 1e-5 * max(norm, 1.0)
assert abs(seen[-1] - full_norm) < 1e-5 * full_norm  # the last call sees the full accumulated norm

# A threshold that never fires: the in-loop clip changes nothing, same gradient as clipping once.
high = 2 * max(seen)
in_loop, _ = clip_every_micro_batch(high)
assert torch.allclose(in_loop, clip_once(high), atol=1e-7)
assert torch.allclose(in_loop, unclipped, atol=1e-6)

# A threshold that fires on the first partial sum: the early clip shrinks micro-batch 1's share.
low = 0.5 * seen[0]
in_loop, seen_low = clip_every_micro_batch(low)
right = clip_once(low)
assert seen_low[0] > low  # the first call fired
assert in_loop.norm().item() <= low * (1 + 1e-5) and right.norm().item() <= low * (1 + 1e-5)  # both capped
cosine = torch.nn.functional.cosine_similarity(in_loop, right, dim=0).item()
assert cosine < 0.999, cosine  # the direction of the update differs
# The weight each micro-batch ends up with: the product of the clip factors from its own call to the last.
factors = [min(1.0, low / (norm + 1e-6)) for norm in seen_low]
weights = [torch.tensor(factors[k:]).prod().item() for k in range(N)]
assert weights[0] < weights[-1]  # the first micro-batches are scaled down more than the last
rebuilt = sum(w * g for w, g in zip(weights, own, strict=True))
assert torch.allclose(rebuilt, in_loop, atol=1e-5)

print(f"norms seen by the N calls: {[round(s, 3) for s in seen]} (full norm {full_norm:.3f})")
print(f"max_norm {low:.3f}: micro-batch weights {[round(w, 3) for w in weights]}, cosine to clip-once {cosine:.4f}")
