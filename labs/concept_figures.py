"""Figures the guides place like the others (`{{ figure: <preset>/<name> }}`) but that show an idea
rather than a run: drawn from a small description of the data (an effective batch, N), so they
render whether or not the preset's reference sweep has finished. labs/guide_figures.py serves
them beside the figures of labs/figure_specs.py; they replace the guides' old ASCII diagrams."""

from collections.abc import Callable
from dataclasses import dataclass, field

from django.utils.translation import gettext as _

from .figures import statistics_chart


@dataclass(frozen=True)
class ConceptFigure:
    draw: Callable[..., dict]  # params -> svg, caption, table title, header, rows (text already translated)
    params: dict = field(default_factory=dict)

    def context(self, key: str) -> dict:
        return self.draw(key=key, **self.params)


def _micro_batch_statistics(*, key: str, batch: int, n: int) -> dict:
    """What a normalization layer computes its statistics over, in one window of `batch` samples
    split into `n` micro-batches."""
    micro = batch // n
    numbers = {"batch": batch, "n": n, "micro": micro}
    title = _("Which samples a normalization layer sees in one window")
    svg = statistics_chart(
        batch=batch,
        n=n,
        id_prefix=key,
        title=title,
        desc=_(
            "Diagram of %(batch)d samples, one dot each, shown three ways. As one batch, BatchNorm computes one "
            "mean μ and one standard deviation σ over all %(batch)d. With accumulation, %(n)d micro-batches of "
            "%(micro)d samples each get their own μ and σ. LayerNorm frames every sample alone: each is "
            "normalized by itself, in one batch or in micro-batches."
        )
        % numbers,
        row_labels=(_("one batch"), "BatchNorm", "LayerNorm"),  # names, not words to translate
        notes=(
            _("BatchNorm without accumulation: μ, σ over %(batch)d samples") % numbers,
            _("statistics per micro-batch; running buffers updated %(n)d times") % numbers,
            _("each sample normalized by itself: same result as one batch of %(batch)d") % numbers,
        ),
    )
    caption = (
        _(
            "One window of an effective batch of %(batch)d samples in %(n)d micro-batches of %(micro)d. BatchNorm "
            "normalizes each micro-batch with its own mean and deviation over %(micro)d samples instead of one pair "
            "over all %(batch)d, and updates its running statistics %(n)d times instead of once; LayerNorm looks at "
            "one sample at a time, so accumulation changes nothing for it."
        )
        % numbers
    )
    header = [_("micro-batch"), _("samples"), _("BatchNorm normalizes with"), _("LayerNorm normalizes with")]
    rows = [
        [
            str(k),
            f"{(k - 1) * micro + 1}–{k * micro}",
            _("μ%(k)d, σ%(k)d over %(micro)d samples") % {"k": k, "micro": micro},
            _("each sample's own mean and deviation"),
        ]
        for k in range(1, n + 1)
    ]
    return {"svg": svg, "caption": caption, "table_title": title, "header": header, "rows": rows}


CONCEPT_FIGURES: dict[tuple[str, str], ConceptFigure] = {
    ("batchnorm-n-sweep", "micro-batch-statistics"): ConceptFigure(_micro_batch_statistics, {"batch": 64, "n": 8}),
}
