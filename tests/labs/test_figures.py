"""Server-rendered SVG figures: the drawing (labs/svg.py) and the guides' figures from the
reference sweeps (labs/figures.py)."""

import html
import re
import shutil
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from django.conf import settings
from django.urls import reverse
from django.utils import translation
from django.utils.translation import gettext

from course.figures import figure_markers
from labs import figures
from labs.models import LabRun
from labs.svg import (
    AXIS,
    GRID_OPEN,
    SERIES_COLORS,
    Bar,
    Series,
    bar_chart,
    line_chart,
    log_ticks,
    nice_ticks,
    series_class,
    tick_decimals,
)

SVG = "{http://www.w3.org/2000/svg}"
GUIDES = Path(settings.CONTENT_DIR) / "guides"
SITE_CSS = Path(__file__).resolve().parents[2] / "static" / "css" / "site.css"


def parse(svg: str) -> ET.Element:
    return ET.fromstring(svg)


# ---------------------------------------------------------------- drawing


def test_the_drawing_version_follows_the_drawing_code_templates_and_catalogs_not_their_prose(tmp_path):
    code, templates, locale = tmp_path / "labs", tmp_path / "templates", tmp_path / "locale"
    code.mkdir()
    for name in figures.DRAWING_CODE:
        shutil.copy(figures.APP_DIR / name, code / name)
    shutil.copytree(settings.BASE_DIR / "templates" / "labs", templates / "labs")
    (locale / "fr" / "LC_MESSAGES").mkdir(parents=True)
    (locale / "fr" / "LC_MESSAGES" / "django.mo").write_bytes(b"catalog")

    def version() -> str:
        return figures.drawing_version(code, templates, [locale])

    before = version()
    assert figures.drawing_version(locale_dirs=[locale]) == before  # the site's own files, copied
    svg = code / "svg.py"
    source = svg.read_text()
    assert source.startswith('"""')
    svg.write_text('"""A reworded docstring."""\n' + source.split('"""', 2)[2] + "\n# a comment\n")
    assert version() == before  # prose
    svg.write_text(source.replace("def ", "def _unused(): pass\n\n\ndef ", 1))
    assert version() != before  # code
    svg.write_text(source)
    panel = templates / "labs" / "_explorable.html"
    panel.write_text(panel.read_text() + "<p></p>")
    assert version() != before  # a template
    panel.write_text(panel.read_text()[: -len("<p></p>")])
    assert version() == before
    (locale / "fr" / "LC_MESSAGES" / "django.mo").write_bytes(b"catalog, translated again")
    assert version() != before  # a caption's translation


def test_a_line_chart_is_accessible_svg_with_axes_legend_and_one_line_per_series():
    svg = line_chart(
        [Series("N = 1", [(1, 2.0), (2, 1.0), (3, 0.5)]), Series("N = <4>", [(1, 2.1), (3, 0.6)])],
        id_prefix="fig",
        title="Loss & friends",
        desc="Two runs.",
        x_label="optimizer step",
        y_label="training loss",
    )
    root = parse(svg)  # well-formed XML: every label escaped
    assert root.get("role") == "img" and root.get("aria-labelledby") == "fig-title fig-desc"
    assert root.find(f"{SVG}title").text == "Loss & friends" and root.find(f"{SVG}desc").text == "Two runs."
    texts = [t.text for t in root.iter(f"{SVG}text")]
    assert "optimizer step" in texts and "training loss" in texts and "N = <4>" in texts
    lines = root.findall(f"{SVG}polyline")
    assert len(lines) == 2 and len(lines[0].get("points").split()) == 3
    # Each line its own colour (a class site.css colours per scheme) and its own dash pattern.
    assert lines[0].get("class") != lines[1].get("class") and lines[1].get("stroke-dasharray")
    assert {line.get("stroke") for line in lines} == {"currentColor"}


def test_every_colour_class_of_the_charts_has_a_colour_in_the_light_and_the_dark_scheme():
    css = SITE_CSS.read_text(encoding="utf-8")
    colour_of = dict(re.findall(r"\.svg-chart \.([a-z0-9-]+) \{ color: var\((--[a-z0-9-]+)\); \}", css))
    drawn = {series_class(i) for i in range(SERIES_COLORS)}
    diagrams = (settings.BASE_DIR / "templates" / "labs" / "_diagrams.html").read_text(encoding="utf-8")
    drawn |= set(re.findall(r'class="([a-z0-9-]+)"', AXIS + GRID_OPEN + diagrams)) - {"svg-chart"}  # the root's
    assert len(drawn) == SERIES_COLORS + 3 and drawn <= colour_of.keys()
    for variable in {colour_of[name] for name in drawn}:
        assert css.count(f"{variable}:") == 2, variable  # set in :root and again for the dark scheme


def test_a_log_scale_bar_chart_spans_orders_of_magnitude():
    bars = [Bar("LayerNorm", 3e-7, "3.0e-07"), Bar("BatchNorm", 9e-2, "9.0e-02"), Bar("N = 1", 0.0, "0.0e+00")]
    root = parse(bar_chart(bars, id_prefix="b", title="t", desc="d", value_label="error", log=True))
    widths = [float(rect.get("width")) for rect in root.iter(f"{SVG}rect")]
    assert len(widths) == 2 and widths[1] > 3 * widths[0]  # on a log axis, not a 300,000× ratio
    texts = [t.text for t in root.iter(f"{SVG}text")]
    assert "9.0e-02" in texts and "0.0e+00" in texts  # a zero has no bar on a log axis, but its value shows


def test_ticks_are_round_numbers_covering_the_data():
    assert nice_ticks(0, 2.3) == [0, 0.5, 1.0, 1.5, 2.0, 2.5]
    assert nice_ticks(1, 2, integer=True) == [1, 2]  # optimizer steps: no step 1.2
    assert nice_ticks(2.24, 2.36) == [2.2, 2.25, 2.3, 2.35, 2.4]  # the highest value is covered
    assert tick_decimals([2.2, 2.25, 2.3]) == [2, 2, 2]  # "2.25, 2.30", never "2.2, 2.2"
    assert log_ticks(3e-7, 0.09) == [1e-7, 1e-6, 1e-5, 1e-4, 1e-3, 1e-2, 1e-1]


# ---------------------------------------------------------------- the guides' figures


def test_every_guide_places_at_least_one_known_figure_in_every_language():
    for folder in sorted(p for p in GUIDES.iterdir() if p.is_dir()):
        for language in ("en", "hi", "fr"):
            markers = figure_markers((folder / f"{language}.md").read_text(encoding="utf-8"))
            assert markers, f"{folder.name}/{language}.md has no figure"
            known = figures.FIGURES.keys()
            assert all(marker in known for marker in markers), (folder.name, markers)


def test_every_figure_draws_with_a_caption_carrying_the_runs_numbers(reference_sweep):
    for (preset, name), figure in figures.FIGURES.items():
        if not figure.from_runs:
            continue  # a concept figure: tests/labs/test_concept_figures.py
        runs = reference_sweep(preset)
        html = figures.reference_figures.render(preset, name, "en")
        assert html.count("<svg") == 1 and "<figcaption>" in html and "<details>" in html, preset
        assert "%(" not in html and "diverged" not in html, preset
        assert f'href="/en/labs/presets/{preset}/"' in html and runs[0].code_version in html
    memory = figures.reference_figures.render("memory-vs-n", "memory", "en")
    assert "1.0\xa0MB at N = 1 to 256.0\xa0KB at N = 8, 4.0 times less" in memory
    assert "peak activation memory (MB)" in memory  # the axis in one unit, ticks 0, 0.5, 1.0


def test_a_figure_in_hindi_and_french_has_a_caption_in_that_language(reference_sweep):
    reference_sweep("memory-vs-n")
    french = html.unescape(figures.reference_figures.render("memory-vs-n", "memory", "fr"))
    hindi = figures.reference_figures.render("memory-vs-n", "memory", "hi")
    with translation.override("fr"):
        assert gettext("Peak activation memory") != "Peak activation memory"  # the catalog's French
        assert gettext("Peak activation memory") in french and "4,0 fois moins" in french
    assert "4.0 गुना कम" in hindi


def test_without_reference_results_a_figure_says_so_and_links_the_preset(db):
    html = figures.reference_figures.render("batchnorm-n-sweep", "loss", "en")
    assert "<svg" not in html and "have not finished yet" in html
    assert 'href="/en/labs/presets/batchnorm-n-sweep/"' in html


def test_an_unfinished_reference_sweep_is_not_drawn(reference_sweep):
    reference_sweep("batchnorm-n-sweep", status=LabRun.Status.RUNNING)
    assert "<svg" not in figures.reference_figures.render("batchnorm-n-sweep", "loss", "en")


def test_a_figure_is_drawn_once_then_served_from_the_cache(reference_sweep, django_assert_num_queries):
    reference_sweep("layernorm-n-sweep")
    first = figures.reference_figures.render("layernorm-n-sweep", "loss", "en")
    with django_assert_num_queries(0):
        assert figures.reference_figures.render("layernorm-n-sweep", "loss", "en") == first


def test_a_guide_page_shows_its_figure_where_the_text_discusses_it(client, reference_sweep):
    from django.core.management import call_command

    call_command("sync_content", stdout=open("/dev/null", "w"))
    url = reverse("course:guide_detail", args=["what-is-gradient-accumulation"])
    missing = client.get(url).content.decode()  # cached for visitors, as every guide page
    assert "<svg" not in missing and "guide-figure-slot" not in missing
    assert 'href="/en/labs/presets/memory-vs-n/"' in missing
    reference_sweep("memory-vs-n")  # a reference sweep finishes: the cached page is retired
    asking = client.get(url).content.decode()  # first a prediction (labs/explorable_figures.py), then the figure
    assert "Which run will need the least peak activation memory?" in asking
    assert 'id="figure-memory-vs-n-memory"' not in asking
    html = client.get(url + "?fig-memory-vs-n-memory=all").content.decode()
    figure = re.search(r'<figure class="guide-figure" id="figure-memory-vs-n-memory">.*?</figure>', html, re.S)
    assert figure and "<title" in figure.group(0) and "<table" in figure.group(0)
    assert html.index('id="peak-memory"') < figure.start() < html.index('id="why-not-smaller-batch"')


@pytest.mark.parametrize("language", ["hi", "fr"])
def test_guide_figures_in_every_language(client, reference_sweep, language):
    from django.core.management import call_command

    call_command("sync_content", stdout=open("/dev/null", "w"))
    reference_sweep("forgot-divide-sgd")
    html = client.get(f"/{language}/guides/the-accumulation-loop/?predict-forgot-divide-sgd-loss=skip").content.decode()
    assert 'id="figure-forgot-divide-sgd-loss"' in html and "<svg" in html


def test_a_run_missing_a_metric_gets_the_presets_own_sentence_not_an_error(reference_sweep):
    reference_sweep("memory-vs-n", peak_activation_bytes=None)  # e.g. stored by an older code version
    html_text = html.unescape(figures.reference_figures.render("memory-vs-n", "memory", "en"))
    assert "<svg" in html_text and "Look at the peak activation memory column" in html_text


def test_numbers_in_french_use_its_decimal_comma(reference_sweep):
    reference_sweep("groupnorm-vs-batchnorm-tiny")
    french = html.unescape(figures.reference_figures.render("groupnorm-vs-batchnorm-tiny", "grad-error", "fr"))
    english = (
        "Gradient-equivalence error of each run against the full batch, on a logarithmic scale. With "
        "micro-batches of 2 samples (N = 16), BatchNorm's error is %(batch)s and GroupNorm's %(group)s."
    )
    with translation.override("fr"):
        caption = gettext(english) % {"batch": "1,0e-06", "group": "1,0e-04"}  # the decimal comma
    assert caption != english % {"batch": "1,0e-06", "group": "1,0e-04"} and caption in french


def test_the_window_timeline_is_drawn_from_the_n_4_runs_timing(reference_sweep):
    runs = reference_sweep("memory-vs-n", wall_seconds=0.6)  # 30 steps × 4 micro-batches: 5 ms each
    html_text = figures.reference_figures.render("memory-vs-n", "window", "en")
    root = parse(re.search(r"<svg.*?</svg>", html_text, re.S).group(0))
    texts = [t.text for t in root.iter(f"{SVG}text")]
    assert texts.count("fwd → bwd") == 4 and "loss / 4" in texts and "optimizer.step()" in texts
    assert ["0", "5", "10", "15", "20"] == [t for t in texts if t and t.isdigit()]  # the time axis, in ms
    assert "four micro-batches of 16 samples, 5.0 ms each on average on NVIDIA H200" in html_text
    assert runs[2].config["accumulation_steps"] == 4


def test_the_data_parallel_figures_show_overlapping_curves_and_the_bytes_no_sync_saves(reference_sweep):
    reference_sweep("data-parallel-no-sync")
    curves = html.unescape(figures.reference_figures.render("data-parallel-no-sync", "loss", "en"))
    root = parse(re.search(r"<svg.*?</svg>", curves, re.S).group(0))
    assert len([p for p in root.iter(f"{SVG}polyline")]) + len(list(root.iter(f"{SVG}path"))) >= 3
    assert "G = 1, N = 4" in curves and "G = 2, N = 2, every_micro" in curves
    assert "the largest gradient-equivalence error is 1.0e-05" in curves  # the third run's, 10^-(7-2)
    bars = html.unescape(figures.reference_figures.render("data-parallel-no-sync", "allreduce", "en"))
    assert "60 all-reduces sending 6.1\xa0MB with no_sync, and 120 sending 12.2\xa0MB" in bars
    assert "2.0 times more bytes" in bars and "bytes sent</th>" in bars
    french = html.unescape(figures.reference_figures.render("data-parallel-no-sync", "allreduce", "fr"))
    assert "60 et envoient 6,1\xa0Mio avec no_sync" in french and "octets envoyés" in french
    hindi = figures.reference_figures.render("data-parallel-no-sync", "loss", "hi")
    assert "सबसे बड़ी gradient-equivalence error" in hindi


def test_the_ddp_section_of_the_loop_guide_shows_both_data_parallel_figures(client, reference_sweep):
    from django.core.management import call_command

    call_command("sync_content", stdout=open("/dev/null", "w"))
    reference_sweep("data-parallel-no-sync")
    for language in ("en", "hi", "fr"):
        shown = "?fig-data-parallel-no-sync-loss=all&fig-data-parallel-no-sync-allreduce=all"
        page = client.get(f"/{language}/guides/the-accumulation-loop/{shown}").content.decode()
        curves = page.index('id="figure-data-parallel-no-sync-loss"')
        bars = page.index('id="figure-data-parallel-no-sync-allreduce"')
        assert page.index('id="ddp-no-sync"') < curves < bars < page.index('id="technical-overview"'), language
