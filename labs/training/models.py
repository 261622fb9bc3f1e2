"""Tiny models for the labs, each built with a chosen normalization.

Kept small on purpose: 200 optimizer steps must take seconds on a laptop CPU. No dropout anywhere,
so accumulation can match the full batch exactly. Where the normalization sits:
- digits-cnn: after each convolution. "layer" normalizes each sample over (channels, height, width),
  written as GroupNorm with one group; "group" uses 4 groups of channels; "batch" is BatchNorm2d.
- digits-mlp: after each hidden linear layer (BatchNorm1d / LayerNorm / GroupNorm).
- tiny-lm and guides-lm: pre-norm transformer blocks and a final norm. "batch" is BatchNorm1d over
  the features of the micro-batch's real (non-padding) tokens: unusual for transformers, offered
  only to show that accumulation with batch statistics is not the large-batch computation.
"rms" is RMSNorm: per sample (digits-cnn: over channels, height and width) or per token.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

from .data import MAX_LEN, PAD, VOCAB_SIZE
from .sizes import SIZES
from .sizes import VOCAB_SIZE as BYTE_VOCAB_SIZE

NUM_CLASSES = 10
GROUPS = 4


def build_model(task: str, norm: str, size: str = "tiny") -> nn.Module:
    """A freshly initialized model (uses the global torch RNG: seed first). ``size``: guides-lm only."""
    if task == "guides-lm":
        spec = SIZES[size]
        return TransformerLM(norm, BYTE_VOCAB_SIZE, spec.context, spec.dim, spec.heads, spec.layers)
    if task == "tiny-lm":
        return TransformerLM(norm, VOCAB_SIZE, MAX_LEN, dim=64, heads=4, layers=2)
    if task == "digits-cnn":
        return DigitsCNN(norm)
    if task == "digits-mlp":
        return DigitsMLP(norm)
    raise ValueError(f"unknown task {task!r}")


def _feature_norm(norm: str, features: int) -> nn.Module:
    """Normalization of [batch, features] activations."""
    if norm == "group":
        return nn.GroupNorm(GROUPS, features)
    makers = {"none": nn.Identity, "batch": nn.BatchNorm1d, "layer": nn.LayerNorm, "rms": FloatRMSNorm}
    if norm not in makers:
        raise ValueError(f"unknown norm {norm!r}")
    return makers[norm](features)


def _channel_norm(norm: str, channels: int) -> nn.Module:
    """Normalization of [batch, channels, height, width] activations ("layer": per sample over C, H, W)."""
    makers = {"batch": nn.BatchNorm2d, "layer": lambda c: nn.GroupNorm(1, c), "rms": ChannelRMSNorm}
    return makers[norm](channels) if norm in makers else _feature_norm(norm, channels)  # "none", "group"


class FloatRMSNorm(nn.RMSNorm):
    """RMSNorm in its weight's dtype: under autocast a 16-bit input (after a Linear) would miss the
    fused kernel, and PyTorch warns; autocast runs layer norm in float32 for the same reason."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return super().forward(x.to(self.weight.dtype))


class ChannelRMSNorm(nn.Module):
    """RMSNorm of each sample over (channels, height, width), one learned scale per channel."""

    def __init__(self, channels: int, eps: float = 1e-6) -> None:
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(channels))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        rms = x.pow(2).mean(dim=(1, 2, 3), keepdim=True).add(self.eps).rsqrt()
        return x * rms * self.weight.view(1, -1, 1, 1)


class DigitsCNN(nn.Module):
    def __init__(self, norm: str) -> None:
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, 16, 3, padding=1),
            _channel_norm(norm, 16),
            nn.ReLU(),
            nn.Conv2d(16, 32, 3, padding=1),
            _channel_norm(norm, 32),
            nn.ReLU(),
            nn.MaxPool2d(2),  # 8x8 -> 4x4
        )
        self.head = nn.Linear(32 * 4 * 4, NUM_CLASSES)

    def forward(self, images: torch.Tensor) -> torch.Tensor:
        return self.head(self.features(images).flatten(1))


class DigitsMLP(nn.Module):
    def __init__(self, norm: str, hidden: int = 128) -> None:
        super().__init__()
        self.net = nn.Sequential(
            nn.Flatten(),
            nn.Linear(64, hidden),
            _feature_norm(norm, hidden),
            nn.ReLU(),
            nn.Linear(hidden, hidden),
            _feature_norm(norm, hidden),
            nn.ReLU(),
            nn.Linear(hidden, NUM_CLASSES),
        )

    def forward(self, images: torch.Tensor) -> torch.Tensor:
        return self.net(images)


class TokenNorm(nn.Module):
    """Normalization of [batch, time, features] that never mixes in padding."""

    def __init__(self, norm: str, features: int) -> None:
        super().__init__()
        self.per_batch = norm == "batch"
        self.inner = _feature_norm(norm, features)

    def forward(self, x: torch.Tensor, real: torch.Tensor) -> torch.Tensor:
        if self.per_batch:
            # Statistics over the real tokens only; padding positions stay zero.
            out = torch.zeros_like(x)
            out[real] = self.inner(x[real]).to(out.dtype)  # autocast may return another dtype
            return out
        # Per-token norms: flatten so GroupNorm sees [tokens, features].
        return self.inner(x.reshape(-1, x.shape[-1])).view_as(x)


class Block(nn.Module):
    def __init__(self, norm: str, dim: int, heads: int) -> None:
        super().__init__()
        self.heads = heads
        self.norm1 = TokenNorm(norm, dim)
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)
        self.norm2 = TokenNorm(norm, dim)
        self.mlp = nn.Sequential(nn.Linear(dim, 2 * dim), nn.GELU(), nn.Linear(2 * dim, dim))

    def forward(self, x: torch.Tensor, real: torch.Tensor) -> torch.Tensor:
        batch, time, dim = x.shape
        q, k, v = self.qkv(self.norm1(x, real)).split(dim, dim=-1)
        q, k, v = (t.view(batch, time, self.heads, -1).transpose(1, 2) for t in (q, k, v))
        # Causal mask: padding sits after the real tokens, so no real token attends to it.
        att = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        x = x + self.proj(att.transpose(1, 2).reshape(batch, time, dim))
        return x + self.mlp(self.norm2(x, real))


class TransformerLM(nn.Module):
    """A causal transformer: token and position embeddings, pre-norm blocks, a final norm, a head.
    tiny-lm's is two layers of width 64 over its symbols; guides-lm's size comes from sizes.SIZES."""

    def __init__(self, norm: str, vocab: int, context: int, dim: int, heads: int, layers: int) -> None:
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.position = nn.Embedding(context, dim)
        self.blocks = nn.ModuleList(Block(norm, dim, heads) for _ in range(layers))
        self.norm = TokenNorm(norm, dim)
        self.head = nn.Linear(dim, vocab)

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        real = tokens != PAD
        positions = torch.arange(tokens.shape[1], device=tokens.device)
        x = self.embed(tokens) + self.position(positions)
        for block in self.blocks:
            x = block(x, real)
        return self.head(self.norm(x, real))
