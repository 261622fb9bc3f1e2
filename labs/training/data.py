"""Data for the labs: scikit-learn's digits, generated sequences (tiny-lm) and the guides' text (guides-lm).

Nothing is downloaded. Every split and sequence is a pure function of fixed constants, the run's
seed and (guides-lm) the guides' text, so a run can be reproduced exactly.

guides-lm reads the paragraphs of every guide file ``<text_dir>/<slug>/{en,hi,fr}.md`` (the worker
passes settings.CONTENT_DIR / "guides"; the default is the repository's own). A paragraph is
validation when a hash of its text says so (one in VAL_EVERY), whatever the seed, size or file order;
a training piece equal to a validation piece (the same code in two languages) is dropped from
training; at most MAX_VAL_SEQUENCES pieces, evenly spaced, are scored, so a validation pass stays
short on a CPU.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import torch

from .version import DEFAULT_TEXT_DIR, guide_text_files

IGNORE_INDEX = -100  # cross_entropy skips these targets (padding)
PAD, BOS = 0, 1  # input tokens; tiny-lm's symbols and guides-lm's bytes come after them

NUM_SYMBOLS = 30  # tiny-lm
VOCAB_SIZE = 2 + NUM_SYMBOLS
MIN_LEN, MAX_LEN = 4, 64  # tokens per sequence including BOS
MAX_STRIDE = 5
LM_TRAIN_SEQUENCES = 4096
LM_VAL_SEQUENCES = 128
LM_VAL_SEED = 1_000_003  # validation is the same for every run, so runs compare

DIGITS_VAL = 360  # 1,797 images -> 1,437 train / 360 validation
DIGITS_SPLIT_SEED = 0

BYTE_OFFSET = 2  # guides-lm: token = byte + 2, after PAD and BOS
VAL_EVERY = 20
MAX_VAL_SEQUENCES = 256
MIN_PIECE = 2  # bytes: BatchNorm over one real token would have nothing to compare
_FRONT_MATTER = re.compile(r"\A---\n.*?\n---\n", re.DOTALL)
_BLANK_LINES = re.compile(r"\n[ \t]*\n")


@dataclass(frozen=True)
class TaskData:
    """Train and validation tensors on the CPU. Digits: ``*_x`` float [n, 1, 8, 8] in [0, 1], ``*_y``
    the labels. Sequences: ``*_x`` input tokens (PAD after the end), ``*_y`` next-token targets
    (IGNORE_INDEX after the end), ``*_lengths`` the real targets per sequence (None for digits)."""

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
    reads the guides in ``text_dir`` cut to ``context`` bytes."""
    if task == "guides-lm":
        return _guides(str(Path(text_dir or DEFAULT_TEXT_DIR).resolve()), context)
    if task in ("digits-cnn", "digits-mlp"):
        return _digits()
    if task == "tiny-lm":
        return _tiny_lm(seed)
    raise ValueError(f"unknown task {task!r}")


def sample_windows(train_size: int, steps: int, effective_batch_size: int, seed: int) -> torch.Tensor:
    """Sample indices [steps, effective_batch_size]: shuffled epochs, drawn in order. Independent of
    accumulation_steps, so N = 1 and N = 4 see the same windows; micro-batch j is the j-th slice."""
    gen = torch.Generator().manual_seed(seed + 7919)  # apart from the model-init stream
    needed = steps * effective_batch_size
    epochs = -(-needed // train_size)
    order = torch.cat([torch.randperm(train_size, generator=gen) for _ in range(epochs)])
    return order[:needed].view(steps, effective_batch_size)


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

    After the first two symbols the rest is predictable, so the loss per token is high on short
    sequences and low on long ones: that difference is what makes averaging per-micro-batch means
    (the 2024 bug) weigh tokens unequally.
    """
    gen = torch.Generator().manual_seed(seed)
    lengths = torch.randint(MIN_LEN, MAX_LEN + 1, (count,), generator=gen)
    start = torch.randint(0, NUM_SYMBOLS, (count, 1), generator=gen)
    stride = torch.randint(1, MAX_STRIDE + 1, (count, 1), generator=gen)
    symbols = 2 + (start + stride * torch.arange(MAX_LEN - 1).unsqueeze(0)) % NUM_SYMBOLS  # after BOS
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


def paragraphs(text: str) -> list[str]:
    """The paragraphs of one guide file, front matter removed."""
    body = _FRONT_MATTER.sub("", text.replace("\r\n", "\n"), count=1)
    return [part.strip() for part in _BLANK_LINES.split(body) if part.strip()]


def split_paragraphs(text_dir: Path) -> tuple[list[str], list[str]]:
    """(train, validation) paragraphs of every guide file, in a fixed order; a paragraph is
    validation when a hash of its text says so."""
    files = guide_text_files(text_dir)  # the same files as the fingerprint's text version
    if not files:
        raise ValueError(f"no guide text (<slug>/en.md, hi.md or fr.md) in {text_dir}")
    train: list[str] = []
    val: list[str] = []
    for path in files:
        for paragraph in paragraphs(path.read_text(encoding="utf-8")):
            digest = hashlib.sha256(paragraph.encode("utf-8")).digest()
            is_validation = int.from_bytes(digest[:4], "big") % VAL_EVERY == 0
            (val if is_validation else train).append(paragraph)
    return train, val


def pieces(texts: list[str], context: int) -> list[bytes]:
    """Each text's UTF-8 bytes cut into consecutive pieces of MIN_PIECE to ``context`` bytes (a Hindi
    character may straddle two: a byte-level model sees bytes)."""
    result = []
    for text in texts:
        data = text.encode("utf-8")
        cut = (data[start : start + context] for start in range(0, len(data), context))
        result.extend(piece for piece in cut if len(piece) >= MIN_PIECE)
    return result


def encode(chunks: list[bytes], context: int) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """One sequence per piece: inputs [n, context] (BOS then the bytes shifted by 2, PAD after),
    next-byte targets (IGNORE_INDEX after the end) and the number of targets (its byte count)."""
    inputs = torch.full((len(chunks), context), PAD, dtype=torch.long)
    targets = torch.full((len(chunks), context), IGNORE_INDEX, dtype=torch.long)
    lengths = torch.tensor([len(chunk) for chunk in chunks], dtype=torch.long)
    for row, chunk in enumerate(chunks):
        tokens = torch.frombuffer(bytearray(chunk), dtype=torch.uint8).long() + BYTE_OFFSET
        inputs[row, 0] = BOS
        inputs[row, 1 : len(chunk)] = tokens[:-1]
        targets[row, : len(chunk)] = tokens
    return inputs, targets, lengths


@lru_cache(maxsize=4)
def _guides(text_dir: str, context: int) -> TaskData:
    train, val = split_paragraphs(Path(text_dir))
    val_pieces = pieces(val, context)
    seen = set(val_pieces)
    stride = -(-len(val_pieces) // MAX_VAL_SEQUENCES) or 1
    train_x, train_y, train_len = encode([piece for piece in pieces(train, context) if piece not in seen], context)
    val_x, val_y, val_len = encode(val_pieces[::stride], context)
    return TaskData(train_x, train_y, val_x, val_y, train_len, val_len)
