"""Hindi glosses: the first prose use of each glossed English term on a Hindi page is followed by
its Hindi word from content/glossary.yaml, once; English and French pages are left as they are."""

import re
import shutil

import pytest
import yaml
from django.conf import settings

from course.content import load_all_guides
from course.glosses import Glosses, load_glosses
from course.markdown_text import FORMULA_RE
from course.models import GuidePage
from course.page_cache import content_hash
from course.rendering import render_markdown, rendered_hash, sanitize
from course.services import guides_sync, narration_text
from course.typography import typeset_hash

HINDI = load_glosses(settings.CONTENT_DIR, "hi")
# The mechanism's tests gloss terms of their own, so that they hold whatever list the glossary keeps.
GLOSSES = Glosses(
    {"loss": "हानि", "gradient": "प्रवणता", "batch": "खेप", "memory": "स्मृति", "model": "प्रतिरूप",
     "learning rate": "सीखने की दर", "mean": "माध्य"},
    ("ग्रेडिएंट संचय (gradient accumulation)",),
)  # fmt: skip
GLOSS_RE = re.compile(r'<span class="gloss">\(([^<]*)\)</span>')


def gloss(term: str, word: str, glosses: Glosses = GLOSSES) -> str:
    return f'{word}&nbsp;<span class="gloss">({glosses.terms[term]})</span>'


def test_the_glossary_glosses_in_hindi_only_the_words_a_hindi_medium_learner_knows():
    assert HINDI.terms == {
        "loss": "हानि",
        "gradient": "प्रवणता",
        "learning rate": "सीखने की दर",
        "mean": "माध्य",
        "variance": "प्रसरण",
        "covariance": "सहप्रसरण",
        "curvature": "वक्रता",
    }  # the reasons for each kept and dropped gloss: docs/CONTENT_REVIEW.md, "Hindi"
    # A quoted paper title is left as written (issue 40, sixth Hindi reader: "rule" is नियम in prose).
    assert HINDI.allowed == (
        "ग्रेडिएंट संचय (gradient accumulation)",
        "QR कोड",
        "On the SDEs and Scaling Rules for Adaptive Gradient Algorithms",
        "noise scale",  # the name of the quantity; plain noise is शोर (issue 40, sixth Hindi reader)
        "Noise scale",
        "Automatic Mixed Precision examples",  # PyTorch's notes, quoted
    )
    assert not load_glosses(settings.CONTENT_DIR, "en")
    assert not load_glosses(settings.CONTENT_DIR, "fr")
    for word in HINDI.terms.values():
        assert re.fullmatch(r"[\u0900-\u097f ]+", word) and not re.search("[\u0958-\u095f]", word)


SOURCE = """\
## Loss और memory {#overview}

`loss` और $\\text{loss}$ और [loss](https://example.org) पहले आते हैं। फिर हर batch का loss N से भाग
पाता है, और यह loss फिर से।

```python
memory = loss_fn(model(x))
```

| model | batch |
|---|---|
| 1 | 2 |

दूसरे paragraph में Memory, फिर से memory, `loss_fn`, loss.backward और हर micro-batch के models।
"""


def test_the_first_prose_use_of_each_term_gets_its_gloss_once():
    html = render_markdown(SOURCE, GLOSSES).html
    assert GLOSS_RE.findall(html).count(GLOSSES.terms["loss"]) == 1
    assert f"हर {gloss('batch', 'batch')} का {gloss('loss', 'loss')} N से" in html
    assert f"paragraph में {gloss('memory', 'Memory')}, फिर से memory," in html
    assert f"micro-batch के {gloss('model', 'models')}।" in html
    assert sorted(GLOSS_RE.findall(html)) == sorted(GLOSSES.terms[t] for t in ("loss", "batch", "memory", "model"))


def test_no_gloss_in_headings_code_math_links_or_tables():
    html = render_markdown(SOURCE, GLOSSES).html
    heading = re.search(r"<h2.*?</h2>", html, re.S).group(0)
    code_block = re.search(r'<div class="codehilite">.*?</div>', html, re.S).group(0)
    table = re.search(r"<table>.*?</table>", html, re.S).group(0)
    for part in (heading, code_block, table):
        assert "gloss" not in part
    assert "<td>1</td>" in table
    assert "<code>loss</code> और" in html
    assert '<span class="arithmatex"><math display="inline"><mrow><mtext>loss</mtext></mrow></math></span>' in html
    assert ">loss</a>" in html


def test_quotations_and_the_introduced_subject_keep_their_words():
    source = (
        'ग्रेडिएंट संचय (gradient accumulation) पर "An Empirical Model of Large-Batch Training" पढ़ें, '
        "फिर हर gradient और model देखें।"
    )
    html = render_markdown(source, GLOSSES).html
    assert "(gradient accumulation)" in html
    assert '"An Empirical Model of Large-Batch Training"' in html
    assert f"हर {gloss('gradient', 'gradient')} और {gloss('model', 'model')} देखें" in html


def test_glosses_pass_the_sanitizer_and_stay_out_of_the_spoken_and_counted_text():
    with_glosses, without = render_markdown(SOURCE, GLOSSES), render_markdown(SOURCE)
    prose = FORMULA_RE.sub(" ", with_glosses.html)  # formulas have a sanitizer of their own (course/mathml.py)
    assert "gloss" in prose and sanitize(prose) == prose
    assert with_glosses.html != without.html
    assert with_glosses.plain_text == without.plain_text  # narration says the page's own words
    assert with_glosses.word_count == without.word_count


@pytest.mark.parametrize(
    "source",
    [
        "हर micro-batch देखें।",  # hyphenated
        "हर micro\u2011batch देखें।",  # with a no-break hyphen
        "हर batch-size देखें।",
        "effective batch 64 पर।",  # the term is the second word of a longer one
        "batch size 64 पर।",  # the first word
        "gradient norm.",  # a full stop ends the sentence, not the term
        "learning rate warmup के साथ।",  # a glossed term of two words, inside a longer one
        "**gradient** norm देखें।",  # joined across inline markup
        "micro-*batch* देखें।",
        "`optimizer` batch देखें।",  # code next to it is a word of the term too
        "[effective](https://example.org) batch देखें।",
        "हर example पर औसत (mean) लें।",  # the sentence already gives the Hindi word
    ],
)
def test_no_gloss_on_part_of_a_longer_term(source):
    html = render_markdown(source, GLOSSES).html
    assert "gloss" not in html, html


def test_a_term_beside_a_symbol_or_across_punctuation_or_blocks_is_glossed():
    html = render_markdown("हर batch का loss N से, फिर loss, gradient और learning rate।", GLOSSES).html
    assert f"का {gloss('loss', 'loss')} N से, फिर loss, {gloss('gradient', 'gradient')} और " in html
    assert gloss("learning rate", "learning rate") + "।" in html
    html = render_markdown("## Effective {#x}\n\nbatch के बाद।\n\n- optimizer\n- batch", GLOSSES).html
    assert f"<p>{gloss('batch', 'batch')} के बाद।</p>" in html  # a heading's last word is not part of it


def test_a_compound_use_leaves_the_term_pending_for_its_next_lone_use():
    html = render_markdown("Micro-batch, batch size और effective batch के बाद batch आता है।", GLOSSES).html
    assert GLOSS_RE.findall(html) == [GLOSSES.terms["batch"]]
    assert f"के बाद {gloss('batch', 'batch')} आता है" in html


def test_an_escaped_gloss_cannot_inject_markup():
    html = render_markdown("हर loss गिनें।", Glosses({"loss": "<img src=x onerror=alert(1)>"})).html
    assert "<img" not in html and "&lt;img" in html


@pytest.mark.django_db
def test_synced_hindi_guides_gloss_each_term_once_and_other_languages_are_unchanged():
    guides_sync()
    sources = load_all_guides(settings.CONTENT_DIR, ["en", "hi", "fr"])
    for page in GuidePage.objects.select_related("guide"):
        glosses = GLOSS_RE.findall(page.body_html)
        if page.language != "hi":
            assert glosses == []
            source_hash = sources[page.guide.slug][page.language].source_hash
            # French pages carry their typography's fingerprint (course/typography.py), no gloss's.
            rendered = rendered_hash(source_hash)  # and every page its renderer's (course/rendering.py)
            assert page.source_hash == (typeset_hash(rendered) if page.language == "fr" else rendered)
            continue
        assert len(glosses) == len(set(glosses)), page.guide.slug
        assert {HINDI.terms["loss"], HINDI.terms["gradient"]} <= set(glosses) <= set(HINDI.terms.values())
        assert "gloss" not in page.plain_text
        unglossed = render_markdown(sources[page.guide.slug]["hi"].body)
        spoken = GuidePage(
            guide=page.guide, language="hi", title=page.title, summary=page.summary, toc=page.toc,
            body_html=unglossed.html, plain_text=unglossed.plain_text,
        )  # fmt: skip
        assert narration_text(page) == narration_text(spoken)  # the audio is not made again


@pytest.mark.django_db
def test_the_hindi_guide_page_shows_the_gloss_in_its_text(client):
    guides_sync()
    hindi = client.get("/hi/guides/what-is-gradient-accumulation/").content.decode()
    english = client.get("/en/guides/what-is-gradient-accumulation/").content.decode()
    shown = GLOSS_RE.findall(hindi)
    assert shown.count(HINDI.terms["loss"]) == shown.count(HINDI.terms["gradient"]) == 1
    assert len(shown) == len(set(shown))  # each term's gloss once on the page
    assert 'class="gloss"' not in english


@pytest.mark.django_db
def test_a_changed_gloss_renders_the_hindi_pages_again_and_changes_the_content_hash(tmp_path):
    shutil.copytree(settings.CONTENT_DIR / "guides", tmp_path / "guides")
    glossary_path = tmp_path / "glossary.yaml"
    shutil.copy(settings.CONTENT_DIR / "glossary.yaml", glossary_path)
    guides_sync(content_dir=tmp_path)
    before = content_hash()

    glossary = yaml.safe_load(glossary_path.read_text(encoding="utf-8"))
    loss = next(term for term in glossary["terms"] if term["en"] == "loss")
    loss["gloss"]["hi"] = "हानि फलन"
    glossary_path.write_text(yaml.safe_dump(glossary, allow_unicode=True), encoding="utf-8")
    counts = guides_sync(content_dir=tmp_path)

    pages = GuidePage.objects.count()
    assert counts["updated"] == pages // 3 and counts["unchanged"] == pages - pages // 3
    assert all("(हानि फलन)" in page.body_html for page in GuidePage.objects.filter(language="hi"))
    assert content_hash() != before
