"""The one-click experiments: each a small sweep plus a sentence on what to look for. The guides link
to these slugs (front matter `lab_preset`), so a slug never changes. Sizes keep a whole sweep within a
couple of minutes on a CPU.
"""

import math
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.utils.functional import Promise
from django.utils.translation import gettext_lazy as _

from labs.training.config import RunConfig


@dataclass(frozen=True)
class PresetRun:
    label: str | Promise  # legend text on the comparison chart
    config: dict[str, Any]  # every setting: those it leaves out at their default

    def __post_init__(self) -> None:
        object.__setattr__(self, "config", RunConfig(**self.config).to_dict())


@dataclass(frozen=True)
class Preset:
    slug: str
    title: str | Promise
    summary: str | Promise
    look_for: str | Promise
    runs: tuple[PresetRun, ...]

    def configs(self) -> list[tuple[str, dict[str, Any]]]:
        """(label, config) per run; LAB_PRESET_MAX_STEPS lets a small machine shorten them."""
        cap = settings.LAB_PRESET_MAX_STEPS or math.inf
        return [(str(run.label), run.config | {"steps": min(run.config["steps"], cap)}) for run in self.runs]

    @property
    def data_parallel(self) -> bool:
        """Some run uses several processes: the preset page then shows G, sync and the all-reduces."""
        return any(run.config["processes"] > 1 for run in self.runs)


def _base(**changes: Any) -> dict[str, Any]:
    batch = {"task": "digits-mlp", "norm": "none", "effective_batch_size": 64, "accumulation_steps": 1, "seed": 0}
    return batch | {"loss_scaling": "mean", "optimizer": "sgd", "learning_rate": 0.05, "steps": 100} | changes


def _tiny_cnn(**changes: Any) -> dict[str, Any]:
    return _base(task="digits-cnn", effective_batch_size=32, steps=60, **changes)


def _tiny_lm(**changes: Any) -> dict[str, Any]:
    return _base(task="tiny-lm", effective_batch_size=32, optimizer="adamw", learning_rate=0.003, steps=60, **changes)


def _guides_lm(**changes: Any) -> dict[str, Any]:
    lm = _base(task="guides-lm", norm="layer", effective_batch_size=16, accumulation_steps=4, steps=20)
    return lm | {"optimizer": "adamw", "learning_rate": 0.003, **changes}


def _n_sweep(norm: str, values: tuple[int, ...] = (1, 4, 16), **changes: Any) -> tuple[PresetRun, ...]:
    return tuple(PresetRun(f"N = {n}", _base(norm=norm, accumulation_steps=n, **changes)) for n in values)


PRESETS: dict[str, Preset] = {
    preset.slug: preset
    for preset in [
        Preset(
            slug="memory-vs-n",
            title=_("Activation memory versus N"),
            summary=_("The same CNN at an effective batch of 64, split into N = 1, 2, 4 and 8 micro-batches."),
            look_for=_(
                "Look at the peak activation memory column: it falls roughly as 1/N, while the loss "
                "curves stay on top of each other because the effective batch did not change."
            ),
            runs=_n_sweep("none", (1, 2, 4, 8), task="digits-cnn", steps=30),
        ),
        Preset(
            slug="forgot-divide-sgd",
            title=_("Forgetting to divide by N, with SGD"),
            summary=_("N = 8 micro-batches with the loss divided by the whole window, and the same without dividing."),
            look_for=_(
                "Without the division the gradient is 8 times too large, so SGD takes 8 times larger steps: "
                "the sum run stalls or blows up, its loss staying high, while the divided run trains normally."
            ),
            runs=(
                PresetRun(_("divided (mean)"), _base(accumulation_steps=8, learning_rate=0.1)),
                PresetRun(_("not divided (sum)"), _base(accumulation_steps=8, learning_rate=0.1, loss_scaling="sum")),
            ),
        ),
        Preset(
            slug="forgot-divide-adamw",
            title=_("Forgetting to divide by N, with AdamW"),
            summary=_("The same mistake with AdamW, which normalizes the update size."),
            look_for=_(
                "The two curves nearly coincide: Adam divides the gradient by its own running scale, so "
                "a constant factor N mostly cancels. That is why this bug hides; SGD exposes it."
            ),
            runs=(
                PresetRun(_("divided (mean)"), _base(accumulation_steps=8, optimizer="adamw", learning_rate=0.002)),
                PresetRun(
                    _("not divided (sum)"),
                    _base(accumulation_steps=8, optimizer="adamw", learning_rate=0.002, loss_scaling="sum"),
                ),
            ),
        ),
        Preset(
            slug="layernorm-n-sweep",
            title=_("LayerNorm at N = 1, 4 and 16"),
            summary=_("An MLP with LayerNorm at an effective batch of 64, accumulated over 1, 4 or 16 micro-batches."),
            look_for=_(
                "The three curves coincide up to floating-point noise and the gradient-equivalence error "
                "is tiny: LayerNorm looks at one sample at a time, so splitting the batch changes nothing."
            ),
            runs=_n_sweep("layer"),
        ),
        Preset(
            slug="batchnorm-n-sweep",
            title=_("BatchNorm at N = 1, 4 and 16"),
            summary=_("The same MLP with BatchNorm: micro-batches of 64, 16 and 4 samples."),
            look_for=_(
                "The curves separate as the micro-batch shrinks, and the gradient-equivalence error is far "
                "from zero: BatchNorm's statistics come from each micro-batch, not from the effective batch."
            ),
            runs=_n_sweep("batch"),
        ),
        Preset(
            slug="groupnorm-vs-batchnorm-tiny",
            title=_("GroupNorm versus BatchNorm at tiny micro-batches"),
            summary=_(
                "A CNN at an effective batch of 32, on the full batch and split into micro-batches of 2 samples, "
                "with BatchNorm and with GroupNorm."
            ),
            look_for=_(
                "The two GroupNorm curves lie on top of each other and their gradient-equivalence error is "
                "tiny: GroupNorm does not care how the batch is split. The two BatchNorm curves part ways, "
                "with a large error at N = 16: statistics of 2 samples are not those of 32."
            ),
            runs=tuple(
                PresetRun(label, _tiny_cnn(norm=norm, accumulation_steps=n))
                for label, norm, n in (
                    (_("BatchNorm, N = 1"), "batch", 1),
                    (_("BatchNorm, N = 16"), "batch", 16),
                    (_("GroupNorm, N = 1"), "group", 1),
                    (_("GroupNorm, N = 16"), "group", 16),
                )
            ),
        ),
        Preset(
            slug="token-normalization",
            title=_("Token normalization on a tiny language model"),
            summary=_(
                "Variable-length sequences at an effective batch of 32: the full batch, the mean over the "
                "window's tokens with N = 8, and the mean of the 8 micro-batch means."
            ),
            look_for=_(
                "The mean over the window's tokens follows the full batch exactly (gradient-equivalence error "
                "near 1e-7). The mean of micro-batch means gives the tokens of short sequences more weight: "
                "its error is far larger and its curve takes its own path."
            ),
            runs=(
                PresetRun(_("full batch"), _tiny_lm()),
                PresetRun(_("mean over tokens, N = 8"), _tiny_lm(accumulation_steps=8)),
                PresetRun(
                    _("mean of micro-batch means, N = 8"),
                    _tiny_lm(accumulation_steps=8, loss_scaling="mean_of_micro_means"),
                ),
            ),
        ),
        Preset(
            slug="batch-size-vs-samples",
            title=_("Bigger batches: fewer steps, not fewer samples"),
            summary=_(
                "The digits MLP with SGD on the same 8,000 samples at effective batches of 16, 64 and 256, built "
                "from micro-batches of 16 (N = 1, 4 and 16), with the learning rate scaled linearly."
            ),
            look_for=_(
                "Against optimizer steps the larger batches fall much faster. Switch the x axis to samples "
                "seen: 16 and 64 end close together, while 256 ends clearly behind, with a higher validation "
                "loss. Past the critical batch size a bigger batch saves steps but needs more samples, and on "
                "one machine samples are time."
            ),
            runs=tuple(
                PresetRun(
                    f"B = {batch}, N = {batch // 16}",
                    _base(
                        effective_batch_size=batch,
                        accumulation_steps=batch // 16,
                        learning_rate=0.05 * batch / 64,  # linear scaling from 0.05 at batch 64
                        steps=8000 // batch,
                    ),
                )
                for batch in (16, 64, 256)
            ),
        ),
        Preset(
            slug="data-parallel-no-sync",
            title=_("Two processes, with and without no_sync"),
            summary=_(
                "An MLP with LayerNorm at an effective batch of 64 in micro-batches of 16: one process with "
                "N = 4, and two processes with N = 2 each, synchronizing once per step (no_sync) or after "
                "every micro-batch."
            ),
            look_for=_(
                "The three curves lie on top of each other and the gradient-equivalence errors stay tiny: "
                "G × N = 4 micro-batches of the same samples give the same gradient however they are split. "
                "Open the two data-parallel runs: with no_sync they make N = 2 times fewer gradient "
                "all-reduces, and send half the bytes, for the same result."
            ),
            runs=(
                PresetRun("G = 1, N = 4", _base(norm="layer", accumulation_steps=4, steps=60)),
                PresetRun("G = 2, N = 2, no_sync", _base(norm="layer", accumulation_steps=2, processes=2, steps=60)),
                PresetRun(
                    "G = 2, N = 2, every_micro",
                    _base(norm="layer", accumulation_steps=2, processes=2, sync="every_micro", steps=60),
                ),
            ),
        ),
        Preset(
            slug="transformer-lm-tiny",
            title=_("A small transformer on the course's own text, in three precisions"),
            summary=_(
                "A byte-level transformer (tiny size, LayerNorm) learns to continue paragraphs of these guides in "
                "English, Hindi and French: 16 sequences of different lengths per step in N = 4 micro-batches, "
                "the loss divided by the window's token count, in float32, bf16 autocast and fp16 autocast with a "
                "gradient scaler."
            ),
            look_for=_(
                "The three loss curves nearly coincide. The gradient-equivalence error tells the precisions apart: "
                "float32 matches the full batch to about 1e-7, the 16-bit runs only to about 1e-4 to 1e-3. In the "
                "fp16 run every step shows its loss scale, and a step the scaler skipped is marked. Compare the "
                "tokens per second too."
            ),
            runs=tuple(PresetRun(precision, _guides_lm(precision=precision)) for precision in ("fp32", "bf16", "fp16")),
        ),
        Preset(
            slug="transformer-lm-n-norm",
            title=_("LayerNorm, RMSNorm and BatchNorm in a transformer, at N = 1 and 4"),
            summary=_(
                "The same small transformer on the course's own text (tiny size) at an effective batch of 16 "
                "sequences, as one batch (N = 1) and as N = 4 micro-batches of 4, with each of three normalization "
                "layers: LayerNorm, RMSNorm and BatchNorm."
            ),
            look_for=_(
                "With LayerNorm and with RMSNorm the N = 1 and N = 4 curves lie on top of each other and the "
                "gradient-equivalence error at N = 4 is about 1e-7: both normalize each token over its own "
                "features. With BatchNorm the N = 4 curve leaves its N = 1 twin and the error is far from zero: "
                "it normalizes each feature over the tokens of the micro-batch, and 4 sequences are not 16. "
                "That is one reason transformers use LayerNorm or RMSNorm."
            ),
            runs=tuple(
                PresetRun(f"{name}, N = {n}", _guides_lm(norm=norm, accumulation_steps=n))
                for name, norm in (("LayerNorm", "layer"), ("RMSNorm", "rms"), ("BatchNorm", "batch"))
                for n in (1, 4)
            ),
        ),
    ]
}
