"""The dashboard is assembled from the sections the other apps register (accounts/dashboard.py):
accounts imports none of them."""

import re

from django.urls import reverse

from accounts import dashboard
from course.models import Guide, GuidePage, GuideRead
from labs.models import LabRun
from labs.training.config import DEFAULT_CONFIG


def section_titles(html: str) -> list[str]:
    return re.findall(r'<h2 id="([\w-]+)"', html)


def test_each_app_contributes_its_section_in_order(learner_client, learner):
    guide = Guide.objects.create(slug="what-is-gradient-accumulation", order=1)
    GuidePage.objects.create(guide=guide, language="en", title="What it is", summary="", body_markdown="", body_html="")
    GuideRead.objects.create(user=learner, guide=guide)
    run = LabRun.objects.create(user=learner, config={**DEFAULT_CONFIG, "steps": 2})
    html = learner_client.get(reverse("accounts:dashboard")).content.decode()
    titles = section_titles(html)
    expected = ["reads-title", "quiz-results-title", "certificates-title", "labs-title", "tokens-title"]
    assert [title for title in titles if title in expected] == expected
    assert reverse("course:guide_detail", args=[guide.slug]) in html  # course's section, with its data
    assert reverse("labs:run", args=[run.pk]) in html  # labs' section, with its data


def test_a_section_registered_again_under_its_name_replaces_the_old_one(learner_client, monkeypatch):
    monkeypatch.setattr(dashboard, "_sections", dict(dashboard._sections))
    dashboard.register_section("labs", template="labs/_dashboard.html", context=lambda user: {"lab_runs": []}, order=5)
    titles = section_titles(learner_client.get(reverse("accounts:dashboard")).content.decode())
    assert titles.count("labs-title") == 1
    assert titles.index("labs-title") < titles.index("reads-title")  # order 5 comes before course's 10


def test_the_course_section_reads_the_learners_guide_reads_once(learner_client, learner, django_assert_max_num_queries):
    first = Guide.objects.create(slug="what-is-gradient-accumulation", order=1, is_published=True)
    second = Guide.objects.create(slug="memory-and-micro-batches", order=2, is_published=True)
    for guide in (first, second):
        page = {"title": guide.slug, "summary": "", "body_markdown": "", "body_html": ""}
        GuidePage.objects.create(guide=guide, language="en", **page)
    GuideRead.objects.create(user=learner, guide=first)
    with django_assert_max_num_queries(20) as captured:
        html = learner_client.get(reverse("accounts:dashboard")).content.decode()
    assert sum("course_guideread" in query["sql"] for query in captured.captured_queries) == 1
    section = html.split('id="reads-title"')[1].split("</section>")[0]
    assert section.count("last opened") == 1 and section.count("Read, quiz not taken") == 1  # that guide only
    assert "Continue: the quiz of guide 1" in section  # started: the read counts as progress, its quiz is next
