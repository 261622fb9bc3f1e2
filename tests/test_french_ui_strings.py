"""The French UI in French typography: every French string of locale/fr/LC_MESSAGES/django.po carries
its no-break spaces itself, and the French pages, as served (templates, UI strings, content), show
no plain or missing space before ; : ! ?, no straight quotes and no ungrouped number in prose."""

import re
from pathlib import Path

import pytest
from django.conf import settings
from django.urls import reverse
from django.utils import translation

from course.models import Guide
from course.templatetags.site_tags import quantity, typeset
from labs.presets import PRESETS
from labs.templatetags.labs_tags import percent, progress, scientific
from quizzes.models import Quiz
from quizzes.services import quizzes_sync
from tests.french_typography import faults, html_prose, po_entries, po_prose

FRENCH_PO = Path(settings.BASE_DIR) / "locale" / "fr" / "LC_MESSAGES" / "django.po"
BODY_RE = re.compile(r"<body\b.*</body>", re.S)


def test_every_french_ui_string_has_french_typography():
    entries = po_entries(FRENCH_PO)
    assert len(entries) > 500  # the reader found the whole file
    found = {msgid[:60]: problems for msgid, msgstr in entries if (problems := faults(po_prose(msgstr)))}
    assert not found, "\n".join(f"{msgid!r}: {problems}" for msgid, problems in found.items())


def test_the_po_reader_reads_wrapped_and_plural_entries(tmp_path):
    po = tmp_path / "django.po"
    po.write_text(
        'msgid ""\nmsgstr ""\n"Language: fr\\n"\n\n'
        '#: a.html\nmsgid "Pass mark: %(n)s%%"\nmsgstr ""\n"Seuil de "\n"réussite : %(n)s %%"\n\n'
        'msgid "%(n)s guide"\nmsgid_plural "%(n)s guides"\nmsgstr[0] "%(n)s guide"\nmsgstr[1] "%(n)s guides"\n',
        encoding="utf-8",
    )
    entries = po_entries(po)
    assert entries == [
        ("Pass mark: %(n)s%%", "Seuil de réussite : %(n)s %%"),
        ("%(n)s guide", "%(n)s guide"),
        ("%(n)s guide", "%(n)s guides"),
    ]
    assert faults(po_prose(entries[0][1])) != []  # a plain space before ":" and before "%"


def page_faults(html: str) -> list[str]:
    body = BODY_RE.search(html).group(0)
    return [problem for run in html_prose(body) for problem in faults(run)]


@pytest.mark.django_db
def test_french_pages_as_served_have_french_typography(client, synced_content):
    quizzes_sync()
    with translation.override("fr"):
        urls = [
            reverse("course:home"),
            reverse("course:guide_index"),
            reverse("course:overview"),
            reverse("course:search") + "?q=perte",
            reverse("course:support"),
            reverse("quizzes:index"),
            reverse("labs:index"),
            reverse("accounts:login"),
            reverse("accounts:signup"),
            *(reverse("course:guide_detail", args=[slug]) for slug in Guide.objects.values_list("slug", flat=True)),
            *(reverse("quizzes:quiz", args=[slug]) for slug in Quiz.objects.values_list("slug", flat=True)),
            *(reverse("labs:preset", args=[slug]) for slug in PRESETS),
        ]
    found = {}
    for url in urls:
        response = client.get(url)
        assert response.status_code == 200, url
        if problems := page_faults(response.content.decode()):
            found[url] = problems
    assert not found, "\n".join(f"{url}: {problems}" for url, problems in found.items())


def test_text_put_together_in_a_template_is_set_on_french_pages_only():
    with translation.override("fr"):
        assert typeset("90–100%") == "90–100\u202f%"
        assert typeset("3/4 (75%)") == "3/4 (75\u202f%)"
    with translation.override("en"):
        assert typeset("90–100%") == "90–100%"


def test_a_count_is_grouped_from_four_digits_on_french_pages_only():
    with translation.override("fr"):
        assert (quantity(2668), quantity(999), quantity(12345)) == ("2\u202f668", "999", "12\u202f345")
    with translation.override("en"):
        assert quantity(2668) == "2668"  # as before


def test_a_labs_percentage_is_set_on_french_pages():
    with translation.override("fr"):
        assert (percent(0.125), progress(45)) == ("12,5\u202f%", "45\u202f%")
    with translation.override("en"):
        assert (percent(0.125), progress(45)) == ("12.5 %", "45 %")  # as before


def test_a_labs_scientific_number_has_a_decimal_comma_on_french_pages_as_in_the_figures():
    with translation.override("fr"):
        assert scientific(1.25e-7) == "1,2e-07"
    with translation.override("en"):
        assert (scientific(1.25e-7), scientific(None)) == ("1.2e-07", "—")
