"""guides-lm's data: the course's own guides (English, Hindi, French) as byte-level sequences.

Real text, nothing downloaded. Every guide file ``<text_dir>/<slug>/{en,hi,fr}.md`` loses its
front matter and is split into paragraphs at blank lines. A paragraph longer than the size's
context is cut into consecutive pieces of at most ``context`` bytes (UTF-8, so a Hindi
character may straddle two pieces: a byte-level model sees bytes). Each piece is one sequence:
BOS, then its bytes shifted by 2 (PAD = 0, BOS = 1); lengths vary from MIN_PIECE bytes to the
context, so micro-batches are padded to their longest sequence and the padding is masked. A
one-byte piece is dropped: BatchNorm over one real token would have nothing to compare.

The validation split is fixed and disjoint: a paragraph belongs to it when a hash of its text
says so (one in VAL_EVERY), whatever the seed, the size or the order of the files, so the same
paragraph text is never on both sides; a training piece equal to a validation piece (the same
code in the English and French guides, say) is dropped from training. At most
MAX_VAL_SEQUENCES pieces, evenly spaced, are scored, so a validation pass stays short on a CPU.

The caller passes the guides' directory (the worker: settings.CONTENT_DIR / "guides"); this
package never imports Django. The default is the repository's own content/guides.
"""

from __future__ import annotations

import hashlib
import re
from functools import lru_cache
from pathlib import Path

import torch

from .data import BOS, IGNORE_INDEX, PAD, TaskData
from .version import DEFAULT_TEXT_DIR, GUIDE_LANGUAGES, guide_text_files

LANGUAGES = GUIDE_LANGUAGES
BYTE_OFFSET = 2  # token = byte + 2, after PAD and BOS
VAL_EVERY = 20
MAX_VAL_SEQUENCES = 256
MIN_PIECE = 2  # bytes

_FRONT_MATTER = re.compile(r"\A---\n.*?\n---\n", re.DOTALL)
_BLANK_LINES = re.compile(r"\n[ \t]*\n")


def guide_files(text_dir: Path) -> list[Path]:
    files = guide_text_files(text_dir)  # the same files as the fingerprint's text version
    if not files:
        raise ValueError(f"no guide text (<slug>/en.md, hi.md or fr.md) in {text_dir}")
    return files


def paragraphs(text: str) -> list[str]:
    """The paragraphs of one guide file, front matter removed."""
    body = _FRONT_MATTER.sub("", text.replace("\r\n", "\n"), count=1)
    return [part.strip() for part in _BLANK_LINES.split(body) if part.strip()]


def is_validation(paragraph: str) -> bool:
    digest = hashlib.sha256(paragraph.encode("utf-8")).digest()
    return int.from_bytes(digest[:4], "big") % VAL_EVERY == 0


def split_paragraphs(text_dir: Path) -> tuple[list[str], list[str]]:
    """(train, validation) paragraphs of every guide file, in a fixed order."""
    train: list[str] = []
    val: list[str] = []
    for path in guide_files(text_dir):
        for paragraph in paragraphs(path.read_text(encoding="utf-8")):
            (val if is_validation(paragraph) else train).append(paragraph)
    return train, val


def pieces(texts: list[str], context: int) -> list[bytes]:
    """Each text's UTF-8 bytes cut into consecutive pieces of MIN_PIECE to ``context`` bytes."""
    result = []
    for text in texts:
        data = text.encode("utf-8")
        cut = (data[start : start + context] for start in range(0, len(data), context))
        result.extend(piece for piece in cut if len(piece) >= MIN_PIECE)
    return result


def encode(chunks: list[bytes], context: int) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Inputs [n, context] (BOS then the bytes, PAD after), next-byte targets (IGNORE_INDEX after
    the end) and the number of targets per sequence (its byte count)."""
    count = len(chunks)
    inputs = torch.full((count, context), PAD, dtype=torch.long)
    targets = torch.full((count, context), IGNORE_INDEX, dtype=torch.long)
    lengths = torch.tensor([len(chunk) for chunk in chunks], dtype=torch.long)
    for row, chunk in enumerate(chunks):
        tokens = torch.frombuffer(bytearray(chunk), dtype=torch.uint8).long() + BYTE_OFFSET
        inputs[row, 0] = BOS
        inputs[row, 1 : len(chunk)] = tokens[:-1]
        targets[row, : len(chunk)] = tokens
    return inputs, targets, lengths


def load_guides(text_dir: Path | str | None, context: int) -> TaskData:
    return _load(str(Path(text_dir or DEFAULT_TEXT_DIR).resolve()), context)


@lru_cache(maxsize=4)
def _load(text_dir: str, context: int) -> TaskData:
    train, val = split_paragraphs(Path(text_dir))
    val_pieces = pieces(val, context)
    seen = set(val_pieces)
    stride = -(-len(val_pieces) // MAX_VAL_SEQUENCES) or 1
    train_x, train_y, train_len = encode([piece for piece in pieces(train, context) if piece not in seen], context)
    val_x, val_y, val_len = encode(val_pieces[::stride], context)
    return TaskData(train_x, train_y, val_x, val_y, train_len, val_len)
