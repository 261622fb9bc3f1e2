"""French typography (course/typography.py): what each rule does and where it must not apply, and
every French guide page, as synced, free of the faults a French reader looks for."""

import re

import pytest
from django.conf import settings

from course.content import load_all_guides
from course.models import GuidePage
from course.rendering import render_markdown, rendered_hash
from course.services import guides_sync
from course.typography import french_html, french_prose, french_text, typeset_hash
from tests.french_typography import faults, html_prose, plain_prose, spoken_faults

NBSP, NNBSP = "\u00a0", "\u202f"
MATH_RE = re.compile(r'<(span|div) class="arithmatex">(.*?)</\1>', re.S)
DECIMAL_POINT_IN_MATH_RE = re.compile(r"\d\.\d")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Pourquoi ?", f"Pourquoi{NNBSP}?"),
        ("Pourquoi?", f"Pourquoi{NNBSP}?"),
        ("Vraiment ?!", f"Vraiment{NNBSP}?!"),
        ("un ; deux", f"un{NNBSP}; deux"),
        ("Attention !", f"Attention{NNBSP}!"),
        ("Note: voir", f"Note{NBSP}: voir"),
        ("Note : voir", f"Note{NBSP}: voir"),
        ("la liste :", f"la liste{NBSP}:"),
        ("« perte »", f"«{NBSP}perte{NBSP}»"),
        ("«perte»", f"«{NBSP}perte{NBSP}»"),
        ("« Quoi ? »", f"«{NBSP}Quoi{NNBSP}?{NBSP}»"),
        ("10 000 exemples", f"10{NNBSP}000 exemples"),
        ("1 234 567 pas", f"1{NNBSP}234{NNBSP}567 pas"),
        ("30 % et 30%", f"30{NNBSP}% et 30{NNBSP}%"),
        # Left alone: times, ratios, URLs, a query string, an operator, "::", marks in brackets,
        # numbers written without groups (35207 may be a pull request), the decimal part, code-like tokens.
        ("à 10:30, un ratio 1:2", "à 10:30, un ratio 1:2"),
        ("https://example.org/a?b=1;c=2", "https://example.org/a?b=1;c=2"),
        ("x != y", "x != y"),
        ("a:: b", "a:: b"),
        ("(?) et [!]", "(?) et [!]"),
        ("PR #35207 et 0,00015", "PR #35207 et 0,00015"),
        ("", ""),
    ],
)
def test_each_rule_and_where_it_does_not_apply(text, expected):
    assert french_prose(text) == expected


def test_code_spans_in_plain_text_are_code():
    assert french_text("Appelez `a ? b : c` ? Oui: `x`!") == f"Appelez `a ? b : c`{NNBSP}? Oui{NBSP}: `x`{NNBSP}!"


def test_html_keeps_tags_attributes_code_and_math_as_they_are():
    fragment = (
        '<p>Voir <code>a:b ; c</code> : <a href="https://x.org/?y=1;z" title="a : b">lien</a>; et &amp; fin!</p>'
        '<div class="codehilite"><pre><span>x ? y</span>: z</pre></div>'
        '<p><span class="arithmatex">\\(a : b ;\\)</span> puis <kbd>Ctrl ;</kbd>?</p>'
        '<div class="guide-figure-slot" title="figure:a/b"></div><p>«x»&#8617;</p>'
    )
    assert french_html(fragment) == (
        f'<p>Voir <code>a:b ; c</code>{NBSP}: <a href="https://x.org/?y=1;z" title="a : b">lien</a>{NNBSP}; '
        f"et &amp; fin{NNBSP}!</p>"
        '<div class="codehilite"><pre><span>x ? y</span>: z</pre></div>'
        f'<p><span class="arithmatex">\\(a : b ;\\)</span> puis <kbd>Ctrl ;</kbd>{NNBSP}?</p>'
        f'<div class="guide-figure-slot" title="figure:a/b"></div><p>«{NBSP}x{NBSP}»↩</p>'
    )


def test_the_rules_are_idempotent():
    text = "« Pourquoi? » Note: 10 000 exemples ; 30 % !"
    once = french_text(text)
    assert french_text(once) == once
    assert french_html(f"<p>{once}</p>") == f"<p>{once}</p>"


def test_a_french_page_is_set_and_others_are_not():
    source = (
        "## Pourquoi ? {#why}\n\nNote : 10 000 exemples ; « voir » `a ? b`.\n\n```python\nx = {'a': 1} ; y = 2\n```\n"
    )
    french = render_markdown(source, language="fr")
    assert f"Note{NBSP}: 10{NNBSP}000 exemples{NNBSP}; «{NBSP}voir{NBSP}» <code>a ? b</code>" in french.html.replace(
        "&nbsp;", NBSP
    )
    assert french.toc[0]["title"] == f"Pourquoi{NNBSP}?"
    english = render_markdown(source)
    assert NNBSP not in english.html and "&nbsp;" not in english.html
    code = english.html[english.html.index('<div class="codehilite">') :]
    assert french.html.endswith(code)  # the code block as written
    assert french.word_count == english.word_count  # no-break spaces still separate words


def page_texts(page: GuidePage) -> dict[str, str]:
    """Every text of a synced page that a reader sees, by where it is."""
    texts = {"title": page.title, "summary": page.summary, "lab_try": page.lab_try}
    texts |= {f"objective {o['id']}": o["text"] for o in page.objectives}
    texts |= {f"prerequisite {n}": p["text"] for n, p in enumerate(page.prerequisites, start=1)}

    def headings(entries):
        for entry in entries:
            yield entry["title"]
            yield from headings(entry["children"])

    texts |= {f"heading {n}": title for n, title in enumerate(headings(page.toc), start=1)}
    return {where: plain_prose(text) for where, text in texts.items()}


@pytest.mark.django_db
def test_french_guide_pages_have_french_typography_everywhere():
    """No plain or missing space before ; : ! ?, no straight quotes, no ungrouped 5-digit number,
    no decimal point in prose: in the body, the headings and the front matter of every page."""
    guides_sync()
    found = {}
    for page in GuidePage.objects.filter(language="fr").select_related("guide"):
        runs = {f"body: {run.strip()[:40]!r}": run for run in html_prose(page.body_html)}
        for where, text in (page_texts(page) | runs).items():
            if problems := faults(text):
                found[f"{page.guide.slug}/fr.md, {where}"] = problems
    assert not found, "\n".join(f"{where}: {problems}" for where, problems in found.items())


@pytest.mark.django_db
def test_french_math_writes_the_decimal_comma():
    """Math keeps its own spacing, so the rules leave it alone; a French formula writes 0{,}05
    (braces keep TeX from spacing the comma as punctuation), never 0.05."""
    guides_sync()
    found = [
        f"{page.guide.slug}: {formula[:60]!r}"
        for page in GuidePage.objects.filter(language="fr").select_related("guide")
        for _tag, formula in MATH_RE.findall(page.body_html)
        if DECIMAL_POINT_IN_MATH_RE.search(re.sub(r"<[^>]*>", "", formula))  # its MathML's text
    ]
    assert found == []


@pytest.mark.django_db
def test_a_changed_rule_sets_the_french_pages_again():
    guides_sync()
    sources = load_all_guides(settings.CONTENT_DIR, ["en", "hi", "fr"])
    page = GuidePage.objects.filter(language="fr").select_related("guide").first()
    source_hash = rendered_hash(sources[page.guide.slug]["fr"].source_hash)
    assert page.source_hash == typeset_hash(source_hash)
    GuidePage.objects.filter(pk=page.pk).update(source_hash=source_hash, body_html="stale")  # set by older rules
    assert guides_sync()["updated"] == 1
    page.refresh_from_db()
    assert page.body_html != "stale" and page.source_hash == typeset_hash(source_hash)


@pytest.mark.parametrize(
    ("text", "flagged"),
    [
        ("Pourquoi ?", True),
        ("Pourquoi?", True),
        (f"Pourquoi{NNBSP}?", False),
        ("Note : voir", True),
        (f"Note{NBSP}: voir", False),
        ("à 10:30", False),
        ('le mot "perte"', True),
        (f"le mot «{NBSP}perte{NBSP}»", False),
        ("« perte »", True),
        ("10000 exemples", True),
        ("10 000 exemples", True),
        (f"10{NNBSP}000 exemples", False),
        ("la PR #35207, arXiv 1705.08741", False),
        ("un momentum de 0.1", True),
        ("un momentum de 0,1", False),
        ("clip_grad_norm_(params, max_norm=1.0)", False),  # code, even without backticks
        ("PyTorch 2.0, transformers 4.46 et 4.47, la v4.47", False),
        ("voir https://example.org/a?b=1 ; c", True),
        (f"voir https://github.com/huggingface/transformers/pull/35207{NNBSP}; c", False),
        ("30%", True),
        (f"30{NNBSP}%", False),
        ("l'accumulation", True),
        ("l’accumulation, aujourd’hui", False),
        ("le 4e micro-lot, le 1er pas, la 2ème fenêtre", True),
        ("le 4ème micro-lot", True),
        ("l’exécution n° 12", True),
        ("le 4ᵉ micro-lot, le 1ᵉʳ pas, l’exécution nᵒ 12", False),
        ("un écart de 1e-7 ou 2e+3", True),  # code's notation (issue 40, second reader)
        ("des poids qui s’écartent jusqu’à 5,8e-2", True),
        ("un écart de 5,8 × 10⁻² ou 10⁻⁷, le format fp8e4m3", False),
        ("un lot de 1024", True),
        ("2000 pas de warmup", True),  # a quantity, though it could be a year
        (f"un lot de 1{NNBSP}024 et 2{NNBSP}000 pas", False),
        ("Goyal et al. (2017), la PR #2719, arXiv 1705.08741, la ligne 1024", False),
        # issue 40 (third reader): a list of decimal-comma numbers is separated by « ; »
        ("des normes d’environ 0,81, 1,20, 1,31 et 1,40", True),
        ("(environ 3,9, 2,5 et 4,3)", True),
        ("à N = 2, 3,5 fois plus", True),  # an integer then a decimal reads as 2,3 and 5
        (f"des normes d’environ 0,81{NNBSP}; 1,20{NNBSP}; 1,31 et 1,40", False),
        (f"0,19 pour le lot de 16{NNBSP}; 0,18 pour 64, puis 2, 4 et 8 micro-lots, de 1,96 à 16 × 1, de 7,86", False),
    ],
)
def test_the_check_finds_each_fault_and_only_faults(text, flagged):
    assert bool(faults(text)) is flagged


@pytest.mark.parametrize(
    ("text", "flagged"),
    [
        ("C'est le 4e micro-lot.", True),
        ("C’est le 4ᵉ micro-lot.", True),  # the voice spells the superscript
        ("C’est le quatrième micro-lot, pas le premier.", False),
        ("Un lot de 1024 exemples.", True),
        ("Un lot de 1 024 exemples, en 2018 ? Oui : 10 000 pas.", False),  # plain spaces: the voice reads them
    ],
)
def test_the_spoken_check_finds_each_fault_and_only_faults(text, flagged):
    assert bool(spoken_faults(text)) is flagged


def test_french_spoken_summaries_are_written_for_the_voice_and_the_reader():
    """The spoken summaries are plain text no rule sets: typographic apostrophes, ordinals in
    words and grouped quantities are written in the file itself."""
    found = {
        path.parent.name: problems
        for path in sorted(settings.CONTENT_DIR.glob("guides/*/summary.fr.txt"))
        if (problems := spoken_faults(path.read_text(encoding="utf-8")))
    }
    assert not found, "\n".join(f"{slug}: {problems}" for slug, problems in found.items())
