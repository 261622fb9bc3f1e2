"""Figures drawn from a description of the data instead of a run (labs/figures.py, BatchStatistics): the
guides' former ASCII diagrams, shown whether or not a reference sweep exists."""

import html
import re
import xml.etree.ElementTree as ET
from pathlib import Path

from django.conf import settings
from django.core.management import call_command

from labs import figures

SVG = "{http://www.w3.org/2000/svg}"
GUIDE = Path(settings.CONTENT_DIR) / "guides" / "normalization-and-accumulation"
BOX_DRAWING = re.compile("[\u2500-\u257f]")


def draw(batch: int, n: int) -> ET.Element:
    svg = figures.BatchStatistics(batch=batch, n=n).svg([], key="stats", title="Statistics <per> window")
    return ET.fromstring(svg)


def test_the_statistics_diagram_draws_every_sample_and_one_frame_per_group_of_statistics():
    root = draw(64, 8)
    assert root.get("role") == "img" and root.find(f"{SVG}title").text == "Statistics <per> window"
    assert len(root.findall(f"{SVG}circle")) == 3 * 64  # every sample, in each of the three rows
    frames = root.findall(f"{SVG}rect")
    assert len(frames) == 1 + 8 + 64  # one batch, N micro-batches, one frame per sample (LayerNorm)
    texts = [t.text for t in root.iter(f"{SVG}text")]
    assert "μ σ" in texts and "μ₁ σ₁" in texts and "μ₈ σ₈" in texts and "μ₉ σ₉" not in texts
    assert len(draw(64, 4).findall(f"{SVG}rect")) == 1 + 4 + 64  # drawn from N, not fixed at 8


def test_a_concept_figure_renders_without_any_reference_sweep(db):
    figure = figures.reference_figures.render("batchnorm-n-sweep", "micro-batch-statistics", "en")
    assert figure.count("<svg") == 1 and "have not finished yet" not in figure
    assert "Reference runs of the lab preset" not in figure  # no run behind it to date
    assert "<figcaption>" in figure and "<details>" in figure and "%(" not in figure
    assert "8 micro-batches of 8" in figure
    rows = re.findall(r"<tr><th scope=\"row\">(\d+)</th>", figure)
    assert rows == [str(k) for k in range(1, 9)]
    assert "μ8, σ8 over 8 samples" in html.unescape(figure)


def test_a_concept_figure_speaks_the_pages_language(db):
    french = html.unescape(figures.reference_figures.render("batchnorm-n-sweep", "micro-batch-statistics", "fr"))
    hindi = figures.reference_figures.render("batchnorm-n-sweep", "micro-batch-statistics", "hi")
    assert "8 micro-lots de 8" in french and "Les exemples que voit une couche" in french
    assert "एक batch" in hindi and "बार update" in hindi


def test_the_normalization_guide_shows_the_diagram_as_svg_in_every_language(client, db):
    call_command("sync_content", stdout=open("/dev/null", "w"))
    for language in ("en", "hi", "fr"):
        source = (GUIDE / f"{language}.md").read_text(encoding="utf-8")
        assert not BOX_DRAWING.search(source), language  # no ASCII diagram left in the guide
        page = client.get(f"/{language}/guides/normalization-and-accumulation/").content.decode()
        figure = re.search(
            r'<figure class="guide-figure" id="figure-batchnorm-n-sweep-micro-batch-statistics">.*?</figure>',
            page,
            re.S,
        )
        assert figure and "<svg" in figure.group(0) and "<table" in figure.group(0), language
        assert page.index('id="technical-overview"') < figure.start(), language
