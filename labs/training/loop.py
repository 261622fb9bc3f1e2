"""The lab's training loop: gradient accumulation in one function, train(), read top to bottom.

What each micro-batch's summed loss is divided by (loss_scaling):
- "mean": the whole window's sample (digits) or non-padding token count: the large-batch gradient.
- "sum": its own count, never divided by N: N times too large (classic mistake).
- "mean_of_micro_means": its own count × N: the pre-fix Transformers behaviour; the same as "mean"
  when every micro-batch holds the same number of items.
- "mean_of_rank_means" (processes > 1): its rank's share of the window (classic mistake).
The logged loss is always the real mean loss over the window, whatever the scaling.

Precision: fp32 is exact float32 with TF32 off for matmuls and cuDNN (recent GPUs would use it, and
the ~1e-7 gradient-equivalence error the guides promise would not be what is measured); tf32 allows
it (CUDA only). bf16 and fp16 run each forward under autocast; the loss is summed in float32, and the
parameters, gradients and optimizer state stay float32; fp16 adds the GradScaler. Autocast's 16-bit
weight copies count as activations.

Data parallel (processes = G; data_parallel.py runs the processes): each window is split into G
contiguous shares, one per rank, under DistributedDataParallel. DDP averages the ranks' gradients, so
every divisor is G times smaller; "mean"'s count is the whole window's, summed over the ranks by a
small all-reduce before each window that also carries rank 0's stop.

Window 0 is measured: each micro-batch's activation memory, and the accumulated gradient against the
full-batch one. A run ends "cancelled" when should_stop() says so before a step (no final validation),
"diverged" at a non-finite loss (its point has loss None), else "finished". The seed fixes
initialization and data order (not N): on the CPU the same curve bit for bit.
"""

from __future__ import annotations

import contextlib
import copy
import math
import time
import weakref
from collections.abc import Callable, Iterable, Iterator
from typing import Any

import torch
import torch.distributed as dist
import torch.nn.functional as F
from torch import nn
from torch.nn.parallel import DistributedDataParallel

from . import data_parallel
from .config import CODE_VERSION, CPU_ONLY, PER_RANK_SCALING, RunConfig, refusals
from .data import IGNORE_INDEX, TaskData, load_task_data, sample_windows
from .models import build_model
from .results import RunResult, finite
from .sizes import SIZES

ProgressCallback = Callable[[dict[str, Any], int, int], None]
AUTOCAST_DTYPES = {"bf16": torch.bfloat16, "fp16": torch.float16}
NO_CONTEXT = contextlib.nullcontext()  # made once: the hot path pays no context it does not need


def run_experiment(
    config: RunConfig,
    *,
    device: str | torch.device | None = None,
    dtype: torch.dtype = torch.float32,
    on_progress: ProgressCallback | None = None,
    should_stop: Callable[[], bool] | None = None,
    keep_model: bool = False,
    text_dir: Any = None,
    timeout_seconds: float = data_parallel.DEFAULT_TIMEOUT_SECONDS,
) -> RunResult:
    """Train ``config`` (on CUDA when available) in this process, or in config.processes ranks.

    ``on_progress(point, done, total)`` is called after every step; throttle expensive work in the
    caller. With processes > 1: ``timeout_seconds`` for a silent rank (data_parallel.run_ranks)."""
    options = {"dtype": dtype, "keep_model": keep_model, "text_dir": text_dir}
    if config.processes > 1:  # train() in each rank; rank 0's result comes back
        values, state = data_parallel.run_ranks(
            train, config, options, device, on_progress, should_stop, timeout_seconds
        )
        model = None
        if state is not None:
            model = build_model(config.task, config.norm, config.size).to(dtype=dtype)
            model.load_state_dict(state)
        return RunResult(**values, model=model)
    dev = torch.device(device or device_class())
    if dev.type != "cuda" and (refused := refusals(config, CPU_ONLY)):  # a GPU size or precision
        raise ValueError(*next(iter(refused.values())))
    return train(config, dev, on_progress=on_progress, should_stop=should_stop, **options)


def train(
    config: RunConfig,
    device: torch.device,
    *,
    dtype: torch.dtype = torch.float32,
    rank: int = 0,
    on_progress: ProgressCallback | None = None,
    should_stop: Callable[[], bool] | None = None,
    keep_model: bool = False,
    text_dir: Any = None,
) -> RunResult:
    """The run: in this process, or as ``rank`` of config.processes (inside its process group)."""
    world = config.processes
    torch.manual_seed(config.seed)  # model initialization, the same on every rank
    model = build_model(config.task, config.norm, config.size).to(device=device, dtype=dtype).train()
    data = load_task_data(config.task, config.seed, context=SIZES[config.size].context, text_dir=text_dir)
    net, comm = model, None  # what runs forward and backward: the model, or DDP around it
    if world > 1:
        net = DistributedDataParallel(model, device_ids=[device.index] if device.type == "cuda" else None)
        comm = data_parallel.CommStats()
        net.register_comm_hook(comm, data_parallel.counting_allreduce_hook)
    params = list(model.parameters())
    optimizer = make_optimizer(config, model)
    feed = Feed(data, config, device, dtype, rank)
    val_chunks, val_count = validation_batches(data, device, dtype)
    autocast_dtype = AUTOCAST_DTYPES.get(config.precision)  # bf16 or fp16; None: no autocast
    autocast = torch.autocast(device.type, dtype=autocast_dtype) if autocast_dtype else NO_CONTEXT
    scaler = torch.amp.GradScaler(device.type, enabled=config.precision == "fp16")
    scale = scaler.get_scale()

    def forward(module: nn.Module, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        with autocast:
            logits = module(x)
        return loss_sum(logits.float() if autocast_dtype else logits, y)  # under autocast, summed in float32

    first_window = MeasuredWindow(model, feed, forward, scaler, rank=rank, device=device)
    later_windows = Window(feed)
    curve: list[dict[str, Any]] = []
    validation: list[dict[str, Any]] = []
    status, lr, samples, tokens = "finished", optimizer.param_groups[0]["lr"], 0, 0
    validation_seconds, window_seconds = 0.0, 0.0
    with matmul_precision(config.precision):
        start = time.perf_counter()
        for step in range(config.steps):
            stop = should_stop is not None and should_stop()
            if world > 1:  # one small all-reduce: rank 0's stop, and the window's count over all ranks
                stop, feed.window_count[step] = _all_reduce([stop, feed.local_count[step]], device)
            if stop:
                status = "cancelled"
                break
            started = time.perf_counter()
            optimizer.zero_grad(set_to_none=True)
            window = first_window if step == 0 else later_windows
            window_loss_sum, divisors = None, _divisors(config, feed, step)
            for j, (x, y) in enumerate(window.micro_batches(step)):
                skip_sync = world > 1 and config.sync == "no_sync" and j < config.accumulation_steps - 1
                with net.no_sync() if skip_sync else NO_CONTEXT, window.track():
                    summed = forward(net, x, y)
                    scaler.scale(summed / divisors[j]).backward()
                window_loss_sum = summed.detach() if window_loss_sum is None else window_loss_sum + summed.detach()
            window.finish()
            scaler.unscale_(optimizer)  # fp16, once per window: the norm and clipping see true gradients
            norm = torch.nn.utils.get_total_norm([p.grad for p in params if p.grad is not None])
            if config.grad_clip is not None:
                torch.nn.utils.clip_grads_with_norm_(params, config.grad_clip, norm)
            scaler.step(optimizer)  # fp16: skipped if unscale_ found inf or NaN
            scaler.update()  # fp16: lowers the scale exactly when the step was skipped
            if world > 1:
                dist.all_reduce(window_loss_sum)
            loss, norm = _read(window_loss_sum / feed.window_count[step], norm, device)
            window_seconds += time.perf_counter() - started - window.seconds
            samples += config.effective_batch_size
            tokens += feed.window_count[step] if data.is_sequence else 0
            point = {
                "step": step + 1,
                "loss": finite(loss),
                "grad_norm": finite(norm),
                "lr": lr,
                "samples": samples,
                "tokens": tokens if data.is_sequence else None,
                "seconds": round(time.perf_counter() - start, 6),
            }
            if scaler.is_enabled():
                new_scale = scaler.get_scale()
                point.update(skipped=new_scale < scale, loss_scale=new_scale)
                scale = new_scale
            curve.append(point)
            if not math.isfinite(loss):
                status = "diverged"
            elif (step + 1) % max(1, config.steps // 10) == 0 or step + 1 == config.steps:
                started = time.perf_counter()
                validation.append({"step": step + 1, "loss": None, "accuracy": None})  # rank 0 reports
                if rank == 0:
                    val_loss, accuracy = _evaluate(model, val_chunks, val_count)
                    validation[-1].update(loss=finite(val_loss), accuracy=accuracy)
                validation_seconds += time.perf_counter() - started
            if on_progress is not None:
                on_progress(point, step + 1, config.steps)
            if status == "diverged":
                break
        wall = time.perf_counter() - start
    last = validation[-1] if validation else {}
    return RunResult(
        config=config.to_dict(),
        status=status,
        steps_done=len(curve),
        curve=curve,
        validation=validation,
        final_loss=curve[-1]["loss"] if curve else None,
        val_loss=last.get("loss"),
        val_accuracy=last.get("accuracy"),
        device=describe_device(device),
        torch_version=torch.__version__,
        code_version=CODE_VERSION,
        dtype=str(dtype).removeprefix("torch."),
        parameter_count=sum(p.numel() for p in params),
        wall_seconds=wall,
        validation_seconds=validation_seconds,
        metrics_seconds=first_window.seconds,
        samples_per_second=samples / wall if wall > 0 else 0.0,
        tokens_per_second=(tokens / wall if wall > 0 else 0.0) if data.is_sequence else None,
        peak_activation_bytes=first_window.meter.peak if first_window.meter else None,
        activation_memory_method=first_window.meter.method if first_window.meter else None,
        grad_equivalence_error=first_window.grad_error,
        allreduce_calls=comm.calls if comm else None,
        allreduce_bytes=comm.bytes if comm else None,
        communication_seconds=comm.seconds if comm else None,
        compute_seconds=max(0.0, window_seconds - comm.seconds) if comm else None,  # windows less all-reduces
        model=model if keep_model else None,
    )


# ---------------------------------------------------------------- the loop's parts


class Feed:
    """This rank's share of every window, on the device, with its counts precomputed on the CPU so the
    loop never waits on the device to learn a batch size. Sequences are cut to the longest one a
    batch holds: padding sits at the end and the models are causal."""

    def __init__(self, data: TaskData, config: RunConfig, device: torch.device, dtype: torch.dtype, rank: int = 0):
        windows = sample_windows(data.train_size, config.steps, config.effective_batch_size, config.seed)
        share = config.effective_batch_size // config.processes  # a rank's contiguous slice of each window
        self.processes = config.processes
        self.whole, self.lengths = windows, data.train_lengths
        windows = windows[:, rank * share : (rank + 1) * share]
        self.accumulation_steps, self.micro_batch_size = config.accumulation_steps, config.micro_batch_size
        self.x = data.train_x.to(device=device, dtype=dtype if data.train_x.is_floating_point() else None)
        self.y = data.train_y.to(device)
        self.windows = windows.to(device)
        if data.is_sequence:
            lengths = data.train_lengths[windows].view(config.steps, self.accumulation_steps, self.micro_batch_size)
            self.micro_width = lengths.amax(-1).tolist()  # time steps each micro-batch needs
            self.micro_count = lengths.sum(-1).tolist()  # its non-padding tokens
            self.window_width = lengths.amax((1, 2)).tolist()
        else:
            self.micro_width = self.window_width = None
            self.micro_count = [[self.micro_batch_size] * self.accumulation_steps] * config.steps
        self.local_count = [sum(counts) for counts in self.micro_count]  # this rank's share of each window
        self.window_count = list(self.local_count)  # the whole window's: all-reduced before it with G > 1

    def micro_batches(self, step: int) -> list[tuple[torch.Tensor, torch.Tensor]]:
        """All micro-batches of a window: one gather, then views (cheaper than N gathers)."""
        m, width = self.micro_batch_size, self.window_width[step] if self.window_width else None
        x, y = self._take(self.windows[step], width)
        if width is None:
            return list(zip(x.split(m), y.split(m), strict=True))
        return [(x[j * m : (j + 1) * m, :w], y[j * m : (j + 1) * m, :w]) for j, w in enumerate(self.micro_width[step])]

    def own_micro_batches(self, step: int) -> Iterator[tuple[torch.Tensor, torch.Tensor]]:
        """The window's micro-batches, each gathered into its own tensors when it is reached (where
        memory is measured: a view would count the whole window, and a kept one would count still)."""
        m = self.micro_batch_size
        for j in range(self.accumulation_steps):
            width = self.micro_width[step][j] if self.micro_width else None
            yield self._take(self.windows[step, j * m : (j + 1) * m], width)

    def whole_window(self, step: int) -> tuple[torch.Tensor, torch.Tensor, int]:
        """The window with every rank's samples, as one batch, and its sample or token count."""
        index = self.whole[step]
        if self.lengths is None:
            return *self._take(index.to(self.x.device), None), len(index)
        lengths = self.lengths[index]
        return *self._take(index.to(self.x.device), int(lengths.max())), int(lengths.sum())

    def _take(self, index: torch.Tensor, width: int | None) -> tuple[torch.Tensor, torch.Tensor]:
        if width is None:
            return self.x[index], self.y[index]
        return self.x[index, :width], self.y[index, :width]


class Window:
    """An ordinary window: its micro-batches as views of one gather (the hot path: no host syncs, no
    per-micro-batch bookkeeping), nothing measured."""

    seconds = 0.0  # spent measuring, left out of the window's time

    def __init__(self, feed: Feed) -> None:
        self.feed = feed

    def micro_batches(self, step: int) -> Iterable[tuple[torch.Tensor, torch.Tensor]]:
        return self.feed.micro_batches(step)

    def track(self) -> contextlib.AbstractContextManager:
        return NO_CONTEXT

    def finish(self) -> None:
        pass


class MeasuredWindow(Window):
    """Window 0, measured: the full-batch gradient to compare the accumulated one with (rank 0), and
    each micro-batch's activation memory, gathered into its own tensors (a view would count the
    whole window). Found after the window: `grad_error` and `meter.peak`."""

    def __init__(
        self, model: nn.Module, feed: Feed, forward: Callable, scaler: Any, *, rank: int, device: torch.device
    ):
        super().__init__(feed)
        self.model, self.forward, self.scaler, self.rank, self.device = model, forward, scaler, rank, device
        self.reference: list[torch.Tensor | None] | None = None
        self.meter: ActivationMeter | None = None
        self.grad_error: float | None = None

    def micro_batches(self, step: int) -> Iterable[tuple[torch.Tensor, torch.Tensor]]:
        started = time.perf_counter()
        if self.rank == 0:
            self.reference = _full_batch_gradients(self.model, self.feed, self.forward, self.scaler)
        self.seconds = time.perf_counter() - started
        if self.device.type == "cuda":  # allocated now, the gradients stay out of the measurement (0 + g == g)
            for p in self.model.parameters():
                p.grad = torch.zeros_like(p)
        self.meter = ActivationMeter(self.model, self.device)
        return self.feed.own_micro_batches(step)

    def track(self) -> contextlib.AbstractContextManager:
        return self.meter.track()

    def finish(self) -> None:
        if self.feed.processes > 1:  # the run's peak is the largest rank's: what one process of it needs
            self.meter.peak = _all_reduce([self.meter.peak], self.device, dist.ReduceOp.MAX)[0]
        if self.reference is not None:
            self.grad_error = relative_grad_difference((p.grad for p in self.model.parameters()), self.reference)


class ActivationMeter:
    """Peak activation memory of micro-batches: parameters, buffers, gradients and optimizer state excluded.
    On CUDA: the allocator's peak during forward + backward minus what was allocated just before the
    forward (callers make gradients exist beforehand, or their first allocation would count). Elsewhere:
    bytes of the distinct non-parameter storages autograd saves for backward, tracked live with
    saved-tensor hooks; a storage seen through several views counts once, until its last release."""

    def __init__(self, model: nn.Module, device: torch.device) -> None:
        self.device = device
        self.cuda = device.type == "cuda"
        self.method = "cuda-allocator" if self.cuda else "saved-tensors"
        self.peak = 0
        state = [*model.parameters(), *model.buffers()]
        self._params = {t.untyped_storage().data_ptr() for t in state}
        self._live: dict[int, list[int]] = {}  # storage pointer -> [bytes, references]
        self._current = 0

    @contextlib.contextmanager
    def track(self) -> Iterator[None]:
        """Wrap the forward and backward of one micro-batch."""
        if self.cuda:
            torch.cuda.synchronize(self.device)
            torch.cuda.reset_peak_memory_stats(self.device)
            before = torch.cuda.memory_allocated(self.device)
            yield
            torch.cuda.synchronize(self.device)
            self.peak = max(self.peak, torch.cuda.max_memory_allocated(self.device) - before)
        else:
            with torch.autograd.graph.saved_tensors_hooks(self._pack, lambda tensor: tensor):
                yield

    def _pack(self, tensor: torch.Tensor) -> torch.Tensor:
        storage = tensor.untyped_storage()
        key = storage.data_ptr()
        if key in self._params:
            return tensor
        entry = self._live.get(key)
        if entry is None:
            self._live[key] = [storage.nbytes(), 1]
            self._current += storage.nbytes()
            self.peak = max(self.peak, self._current)
        else:
            entry[1] += 1
        # Autograd holds the returned object until backward releases it.
        weakref.finalize(tensor, self._release, key)
        return tensor

    def _release(self, key: int) -> None:
        entry = self._live.get(key)
        if entry is None:
            return
        entry[1] -= 1
        if entry[1] == 0:
            self._current -= entry[0]
            del self._live[key]


def relative_grad_difference(
    accumulated: Iterable[torch.Tensor | None], reference: Iterable[torch.Tensor | None]
) -> float:
    """||g_acc - g_full|| / ||g_full|| over all parameters (missing gradients are zero)."""
    diff_sq = torch.zeros((), dtype=torch.float64)
    ref_sq = torch.zeros((), dtype=torch.float64)
    for acc, ref in zip(accumulated, reference, strict=True):
        if ref is None and acc is None:
            continue
        ref64 = ref.detach().double().cpu() if ref is not None else torch.zeros(())
        acc64 = acc.detach().double().cpu() if acc is not None else torch.zeros(())
        diff_sq += (acc64 - ref64).pow(2).sum()
        ref_sq += ref64.pow(2).sum()
    diff, ref_norm = math.sqrt(diff_sq.item()), math.sqrt(ref_sq.item())
    if ref_norm == 0.0:
        return 0.0 if diff == 0.0 else math.inf
    return diff / ref_norm


# What a micro-batch's summed loss is divided by before backward, for each loss scaling, from its own
# count c, the window's count w, its rank's share r, N and G: G times less with G ranks, as DDP
# averages their gradients.
LOSS_DIVISORS: dict[str, Callable[[int, int, int, int, int], float]] = {
    "mean": lambda c, w, r, n, g: w / g,
    "sum": lambda c, w, r, n, g: c / g,  # each micro-batch's own mean, never divided by N
    "mean_of_micro_means": lambda c, w, r, n, g: c * n,  # over all G × N micro-batches, over G
    PER_RANK_SCALING: lambda c, w, r, n, g: r,  # its rank's share × G, over G
}


def _divisors(config: RunConfig, feed: Feed, step: int) -> list[float]:
    divisor = LOSS_DIVISORS[config.loss_scaling]
    window, share, n, g = feed.window_count[step], feed.local_count[step], config.accumulation_steps, config.processes
    return [divisor(count, window, share, n, g) for count in feed.micro_count[step]]


def _all_reduce(values: list, device: torch.device, op: Any = dist.ReduceOp.SUM) -> list[int]:
    shared = torch.tensor(values, dtype=torch.float64, device=device)
    dist.all_reduce(shared, op=op)
    return [int(value) for value in shared.tolist()]


def _full_batch_gradients(model: nn.Module, feed: Feed, forward: Callable, scaler: Any) -> list[torch.Tensor | None]:
    """Gradient of the correct loss of window 0 as one batch, on a copy of the model in its current
    state (so the real model's BatchNorm statistics are untouched), scaled as the micro-batches are."""
    twin = copy.deepcopy(model)
    x, y, count = feed.whole_window(0)
    scaler.scale(forward(twin, x, y) / count).backward()
    return [p.grad for p in twin.parameters()]


def _read(loss: torch.Tensor, norm: torch.Tensor, device: torch.device) -> tuple[float, float]:
    if device.type == "cpu":
        return loss.item(), norm.item()  # no sync to save on the CPU; stacking costs more
    values = torch.stack([loss, norm.to(loss.dtype)]).tolist()  # one device sync per step
    return values[0], values[1]


@torch.inference_mode()
def _evaluate(model: nn.Module, chunks: list[tuple[torch.Tensor, torch.Tensor]], count: int) -> tuple[float, float]:
    """Mean loss and accuracy (per token for the language models) on the validation set."""
    model.eval()  # BatchNorm uses its running statistics
    totals = torch.zeros(2, dtype=torch.float64, device=chunks[0][0].device)
    for x, y in chunks:
        logits = model(x)
        correct = ((logits.argmax(-1) == y) & (y != IGNORE_INDEX)).sum()
        totals += torch.stack([loss_sum(logits, y).double(), correct.double()])
    model.train()
    loss, correct = totals.tolist()  # one sync
    return loss / count, correct / count


# ---------------------------------------------------------------- shared with the benches


def loss_sum(logits: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
    """Summed cross-entropy over samples (digits) or non-padding tokens (sequences)."""
    return F.cross_entropy(logits.flatten(0, -2), targets.flatten(), reduction="sum", ignore_index=IGNORE_INDEX)


def make_optimizer(config: RunConfig, model: nn.Module) -> torch.optim.Optimizer:
    if config.optimizer == "sgd":
        return torch.optim.SGD(model.parameters(), lr=config.learning_rate, momentum=0.9)
    return torch.optim.AdamW(model.parameters(), lr=config.learning_rate)


def validation_batches(
    data: TaskData, device: torch.device, dtype: torch.dtype, chunk: int = 32
) -> tuple[list[tuple[torch.Tensor, torch.Tensor]], int]:
    """Validation batches on the device and the number of items they score. Sequences are sorted by
    length and each chunk cut to its longest, which skips most of the padding (the models are causal)."""
    x = data.val_x.to(dtype=dtype) if data.val_x.is_floating_point() else data.val_x
    if not data.is_sequence:
        return [(x.to(device), data.val_y.to(device))], len(data.val_y)
    chunks = []
    for index in torch.argsort(data.val_lengths, stable=True).split(chunk):
        width = int(data.val_lengths[index].max())
        chunks.append((x[index, :width].to(device), data.val_y[index, :width].to(device)))
    return chunks, int(data.val_lengths.sum())


@contextlib.contextmanager
def matmul_precision(precision: str) -> Iterator[None]:
    """TF32 for matmuls and cuDNN on only when the run asks for tf32; restored afterwards."""
    matmul, cudnn = torch.backends.cuda.matmul, torch.backends.cudnn
    saved = matmul.allow_tf32, cudnn.allow_tf32
    matmul.allow_tf32 = cudnn.allow_tf32 = precision == "tf32"
    try:
        yield
    finally:
        matmul.allow_tf32, cudnn.allow_tf32 = saved


def device_class() -> str:
    """What this machine is for validate_config: "cuda" or "cpu" (checked at call time: importing this
    module never touches CUDA)."""
    return "cuda" if torch.cuda.is_available() else "cpu"


def describe_device(device: torch.device) -> str:
    if device.type != "cuda":
        return device.type
    index = device.index if device.index is not None else torch.cuda.current_device()
    return f"cuda:{index} {torch.cuda.get_device_name(index)}"
