"""Data for the labs: scikit-learn's digits, generated sequences and the guides' text (guides_text).

Nothing is downloaded. Every split and sequence is a pure function of fixed
constants and the run's seed, so a run can be reproduced exactly.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import torch

IGNORE_INDEX = -100  # cross_entropy skips these targets (padding)

# tiny-lm vocabulary: 0 = padding (input side), 1 = start of sequence, 2.. = symbols
PAD, BOS = 0, 1
NUM_SYMBOLS = 30
VOCAB_SIZE = 2 + NUM_SYMBOLS
MIN_LEN, MAX_LEN = 4, 64  # tokens per sequence including BOS
MAX_STRIDE = 5
LM_TRAIN_SEQUENCES = 4096
LM_VAL_SEQUENCES = 128
LM_VAL_SEED = 1_000_003  # validation is the same for every run, so runs compare

DIGITS_VAL = 360  # 1,797 images -> 1,437 train / 360 validation
DIGITS_SPLIT_SEED = 0


@dataclass(frozen=True)
class TaskData:
    """Train and validation tensors on the CPU.

    For digits, ``*_x`` is float [n, 1, 8, 8] in [0, 1] and ``*_y`` the labels.
    For tiny-lm, ``*_x`` holds input tokens [n, MAX_LEN - 1] (PAD after the end),
    ``*_y`` next-token targets (IGNORE_INDEX after the end) and ``*_lengths`` the
    number of real targets per sequence (None for digits).
    """

    train_x: torch.Tensor
    train_y: torch.Tensor
    val_x: torch.Tensor
    val_y: torch.Tensor
    train_lengths: torch.Tensor | None = None
    val_lengths: torch.Tensor | None = None

    @property
    def is_sequence(self) -> bool:
        return self.train_lengths is not None

    @property
    def train_size(self) -> int:
        return self.train_x.shape[0]


def load_task_data(task: str, seed: int, *, context: int = 0, text_dir: Any = None) -> TaskData:
    """Data for a task. Digits and guides-lm ignore the seed (their splits are fixed); guides-lm
    reads the guides in ``text_dir`` cut to ``context`` bytes (labs.training.guides_text)."""
    if task == "guides-lm":
        from .guides_text import load_guides  # it imports this module

        return load_guides(text_dir, context)
    if task in ("digits-cnn", "digits-mlp"):
        return _digits()
    if task == "tiny-lm":
        return _tiny_lm(seed)
    raise ValueError(f"unknown task {task!r}")


@lru_cache(maxsize=1)
def _digits() -> TaskData:
    from sklearn.datasets import load_digits  # local: only digits runs pay the import

    bunch = load_digits()
    images = torch.tensor(bunch.images, dtype=torch.float32).unsqueeze(1) / 16.0
    labels = torch.tensor(bunch.target, dtype=torch.long)
    order = torch.randperm(len(labels), generator=torch.Generator().manual_seed(DIGITS_SPLIT_SEED))
    val, train = order[:DIGITS_VAL], order[DIGITS_VAL:]
    return TaskData(images[train], labels[train], images[val], labels[val])


def make_sequences(count: int, seed: int) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Arithmetic progressions modulo NUM_SYMBOLS with random start, stride and length.

    After the first two symbols the rest is predictable, so the loss per token is
    high on short sequences and low on long ones: that difference is what makes
    averaging per-micro-batch means (the 2024 bug) weigh tokens unequally.
    """
    gen = torch.Generator().manual_seed(seed)
    lengths = torch.randint(MIN_LEN, MAX_LEN + 1, (count,), generator=gen)
    start = torch.randint(0, NUM_SYMBOLS, (count, 1), generator=gen)
    stride = torch.randint(1, MAX_STRIDE + 1, (count, 1), generator=gen)
    positions = torch.arange(MAX_LEN - 1).unsqueeze(0)
    symbols = 2 + (start + stride * positions) % NUM_SYMBOLS  # tokens after BOS
    tokens = torch.cat([torch.full((count, 1), BOS), symbols], dim=1)  # [count, MAX_LEN]
    valid = torch.arange(MAX_LEN).unsqueeze(0) < lengths.unsqueeze(1)
    inputs = torch.where(valid, tokens, PAD)[:, :-1]
    targets = torch.where(valid, tokens, IGNORE_INDEX)[:, 1:]
    return inputs, targets, lengths - 1  # a length-L sequence has L-1 targets


@lru_cache(maxsize=8)
def _tiny_lm(seed: int) -> TaskData:
    train_x, train_y, train_len = make_sequences(LM_TRAIN_SEQUENCES, seed)
    val_x, val_y, val_len = make_sequences(LM_VAL_SEQUENCES, LM_VAL_SEED)
    return TaskData(train_x, train_y, val_x, val_y, train_len, val_len)


def sample_windows(train_size: int, steps: int, effective_batch_size: int, seed: int) -> torch.Tensor:
    """Sample indices [steps, effective_batch_size]: shuffled epochs, drawn in order.

    Independent of accumulation_steps, so N = 1 and N = 4 see the same samples
    in the same windows; micro-batch j of a window is its j-th slice.
    """
    gen = torch.Generator().manual_seed(seed + 7919)  # apart from the model-init stream
    needed = steps * effective_batch_size
    epochs = -(-needed // train_size)
    order = torch.cat([torch.randperm(train_size, generator=gen) for _ in range(epochs)])
    return order[:needed].view(steps, effective_batch_size)
