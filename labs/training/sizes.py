"""Model sizes and numeric precisions of the guides-lm task: plain numbers, no torch.

The web process reads these to validate a learner's settings and to say what each size costs;
labs.training.models builds the model from the same table. Parameter counts are exact (a test
builds every size and counts); memory is stated in two parts:

- state: weights, gradients and AdamW's two moments, all float32 (16 bytes a parameter); it
  does not change with N, the micro-batch or autocast (under autocast the parameters, their
  gradients and the optimizer state stay float32);
- activations: what autograd keeps for backward, per full-context sequence in a micro-batch, in
  float32 with layer norm, measured with the labs' saved-tensor meter on a CPU (a test re-measures
  tiny); autocast keeps many of them in 16 bits, and a micro-batch of b sequences keeps about b
  times as much. The run reports its own measured peak.
"""

from __future__ import annotations

from dataclasses import dataclass

VOCAB_SIZE = 258  # bytes 0..255 shifted by 2, after PAD = 0 and BOS = 1
MLP_RATIO = 2  # labs.training.models.Block: hidden width = 2 × dim
STATE_BYTES_PER_PARAMETER = 16  # float32 weight, gradient, AdamW exp_avg and exp_avg_sq
MIB = 2**20


@dataclass(frozen=True)
class ModelSize:
    name: str
    dim: int
    heads: int
    layers: int
    context: int  # bytes per training sequence (a longer paragraph is cut into pieces)
    needs_gpu: bool
    activation_bytes_per_sequence: int  # float32, layer norm, one full-context sequence

    def parameter_count(self, norm: str = "layer") -> int:
        d = self.dim
        per_norm = {"none": 0, "rms": d}.get(norm, 2 * d)  # layer, batch and group: weight and bias
        block = (3 * d * d + 3 * d) + (d * d + d) + (2 * MLP_RATIO * d * d + MLP_RATIO * d + d) + 2 * per_norm
        embeddings = VOCAB_SIZE * d + self.context * d
        return embeddings + self.layers * block + per_norm + d * VOCAB_SIZE + VOCAB_SIZE

    def state_bytes(self) -> int:
        return self.parameter_count() * STATE_BYTES_PER_PARAMETER  # with layer norm, as the sizes are described

    def memory_bytes(self) -> int:
        """The least memory a worker needs for this size: its state and one full-context sequence's
        float32 activations (a worker takes the sizes whose figure its memory holds)."""
        return self.state_bytes() + self.activation_bytes_per_sequence

    def describe(self) -> str:
        """One line for forms and the API: what the size is and what it costs."""
        where = "needs a GPU worker" if self.needs_gpu else "runs on a CPU"
        return (
            f"{self.name}: {self.parameter_count() / 1e6:.2f}M parameters ({self.layers} layers, width {self.dim}, "
            f"{self.context}-byte context); {self.state_bytes() / MIB:,.0f} MiB of weights, gradients and AdamW "
            f"state, plus about {self.activation_bytes_per_sequence / MIB:,.1f} MiB of float32 activations per "
            f"sequence in a micro-batch; {where}."
        )


SIZES: dict[str, ModelSize] = {  # name, dim, heads, layers, context, needs_gpu, activation_bytes_per_sequence
    size.name: size
    for size in (
        ModelSize("tiny", 64, 4, 2, 128, False, 996_356),
        ModelSize("small", 512, 8, 6, 256, True, 39_143_428),
        ModelSize("medium", 768, 12, 8, 512, True, 154_947_588),
    )
}
SIZE_NAMES: tuple[str, ...] = tuple(SIZES)

# fp32: exact float32 (TF32 off for matmuls and cuDNN); tf32: TF32 allowed (CUDA only);
# bf16 / fp16: autocast, parameters and gradients float32; fp16 adds a GradScaler.
PRECISIONS: tuple[str, ...] = ("fp32", "tf32", "bf16", "fp16")
GPU_ONLY_PRECISIONS: tuple[str, ...] = ("tf32",)
