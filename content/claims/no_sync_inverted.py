"""Claim: with the condition inverted (`model.no_sync() if last else nullcontext()`), DDP all-reduces
after each of the first N - 1 micro-batches and not after the last: each replica adds its own last
micro-batch to the averaged rest, so the replicas step with different gradients and their weights
drift apart. With `nullcontext() if last else model.no_sync()`, one all-reduce per window averages
the whole accumulated sum: every replica gets the same gradient, that of one process running all
the micro-batches of both.

Two processes on the CPU with the gloo backend stand in for the question's 4 GPUs; a communication
hook counts the all-reduces. Used by: final exam `bug-no-sync-inverted`.
"""

import contextlib
import multiprocessing
import os
import tempfile

import torch
import torch._dynamo  # DDP imports it when first built (2 s and more): once here, not in each rank
import torch.distributed as dist
from torch import nn
from torch.distributed.algorithms.ddp_comm_hooks.default_hooks import allreduce_hook
from torch.nn.parallel import DistributedDataParallel

WORLD, N, MICRO, WINDOWS = 2, 4, 4, 2
torch.manual_seed(0)
X = torch.randn(WORLD, WINDOWS * N, MICRO, 6, dtype=torch.float64)  # each rank's own micro-batches
Y = torch.randn(WORLD, WINDOWS * N, MICRO, 1, dtype=torch.float64)
START = nn.Sequential(nn.Linear(6, 8), nn.Tanh(), nn.Linear(8, 1)).double()
loss_fn = nn.MSELoss()


def counting_allreduce(counter: list[int], bucket):
    counter[0] += 1
    return allreduce_hook(None, bucket)


def flat(tensors) -> torch.Tensor:
    return torch.cat([t.detach().flatten() for t in tensors])


def rank_main(rank: int, init_file: str, inverted: bool, results) -> None:
    torch.set_num_threads(1)
    dist.init_process_group("gloo", init_method=f"file://{init_file}", rank=rank, world_size=WORLD)
    net = nn.Sequential(nn.Linear(6, 8), nn.Tanh(), nn.Linear(8, 1)).double()
    net.load_state_dict(START.state_dict())
    model = DistributedDataParallel(net)
    allreduces = [0]
    model.register_comm_hook(allreduces, counting_allreduce)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    first_window_grad = None
    optimizer.zero_grad(set_to_none=True)
    for i in range(WINDOWS * N):
        x, y = X[rank, i], Y[rank, i]
        last = (i + 1) % N == 0
        if inverted:
            sync = model.no_sync() if last else contextlib.nullcontext()
        else:
            sync = contextlib.nullcontext() if last else model.no_sync()
        with sync:
            loss = loss_fn(model(x), y) / N
            loss.backward()
        if last:
            if first_window_grad is None:
                first_window_grad = flat(p.grad for p in model.parameters())
            optimizer.step()
            optimizer.zero_grad(set_to_none=True)
    # plain lists: a tensor would travel as shared memory that dies with this process
    results.put((rank, first_window_grad.tolist(), flat(model.parameters()).tolist(), allreduces[0]))
    del model  # DDP goes before its process group: the other order can hang (the-accumulation-loop#ddp-no-sync)
    dist.barrier()
    dist.destroy_process_group()


def run(inverted: bool) -> dict:
    """Per rank: the first window's gradient, the final weights and the number of all-reduces."""
    context = multiprocessing.get_context("fork")
    results = context.Queue()
    with tempfile.TemporaryDirectory() as folder:
        init_file = os.path.join(folder, "rendezvous")
        ranks = [context.Process(target=rank_main, args=(r, init_file, inverted, results)) for r in range(WORLD)]
        for process in ranks:
            process.start()
        found = {}
        for _ in range(WORLD):
            rank, grad, weights, allreduces = results.get(timeout=60)
            found[rank] = {
                "grad": torch.tensor(grad, dtype=torch.float64),
                "weights": torch.tensor(weights, dtype=torch.float64),
                "allreduces": allreduces,
            }
        for process in ranks:
            process.join(timeout=60)
            assert process.exitcode == 0, process.exitcode
    return found


def reference_first_window_grad() -> torch.Tensor:
    """One process running the first window's micro-batches of every rank: their mean gradient."""
    model = nn.Sequential(nn.Linear(6, 8), nn.Tanh(), nn.Linear(8, 1)).double()
    model.load_state_dict(START.state_dict())
    for rank in range(WORLD):
        for i in range(N):
            (loss_fn(model(X[rank, i]), Y[rank, i]) / (N * WORLD)).backward()
    return flat(p.grad for p in model.parameters())


if __name__ == "__main__":
    reference = reference_first_window_grad()

    fixed = run(inverted=False)
    assert [fixed[r]["allreduces"] for r in range(WORLD)] == [WINDOWS] * WORLD  # one per window
    for r in range(WORLD):
        assert torch.allclose(fixed[r]["grad"], reference, rtol=1e-10, atol=1e-13)
    assert torch.equal(fixed[0]["weights"], fixed[1]["weights"])  # the replicas stay identical

    buggy = run(inverted=True)
    assert [buggy[r]["allreduces"] for r in range(WORLD)] == [WINDOWS * (N - 1)] * WORLD  # N - 1 per window
    assert not torch.allclose(buggy[0]["grad"], buggy[1]["grad"], rtol=1e-3)  # different gradients
    drift = (buggy[0]["weights"] - buggy[1]["weights"]).norm().item()
    assert drift > 1e-3, drift  # the replicas drift apart
    print(f"inverted: {N - 1} all-reduces per window, replicas {drift:.1e} apart; fixed: 1, identical")
