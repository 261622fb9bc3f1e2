"""The guided path through the real course, in every language: Start leads to guide 1, each guide's
quiz result offers the next guide and the last one the final exam, the course page and the
dashboard show progress with the guides' titles, and a passed exam reads as a success with its
certificate (course/progress.py, quizzes/selectors.py)."""

import html as html_lib
import re

import pytest
from django.conf import settings as django_settings
from django.test import Client
from django.urls import reverse
from django.utils import translation
from django.utils.translation import gettext

from course.models import Guide, GuidePage, GuideRead
from quizzes.models import Quiz

LANGUAGES = ("en", "hi", "fr")


@pytest.fixture(autouse=True)
def no_rate_limits(settings):
    """A learner here takes every quiz of the course within seconds; rates have their own tests."""
    settings.RATELIMIT_ENABLE = False


@pytest.fixture(scope="module")
def course_synced(guides_synced_for_module, django_db_blocker):
    """The real quizzes too, in the module's transaction (tests/conftest.py): every test here
    takes the course."""
    from quizzes.services import quizzes_sync

    with django_db_blocker.unblock():
        quizzes_sync(content_dir=django_settings.BASE_DIR / "content")


@pytest.fixture
def course(db, settings, course_synced):
    """The real guides and quizzes from content/."""
    settings.CONTENT_DIR = settings.BASE_DIR / "content"
    return list(Guide.objects.filter(is_published=True).order_by("order", "slug"))


def titles(language: str) -> dict[str, str]:
    return dict(GuidePage.objects.filter(language=language).values_list("guide__slug", "title"))


@pytest.mark.parametrize("language", LANGUAGES)
def test_start_on_the_home_and_course_pages_leads_to_the_first_guide(client, course, language):
    first = f"/{language}/guides/{course[0].slug}/"
    home = client.get(f"/{language}/").content.decode()
    assert re.search(r'<section class="hero">.*?<a class="button" href="([^"]+)"', home, re.S).group(1) == first
    overview = client.get(f"/{language}/course/").content.decode()
    assert f'<a class="button" href="{first}">' in overview


@pytest.mark.parametrize("language", LANGUAGES)
def test_each_guide_quiz_offers_the_next_guide_and_the_last_one_the_exam(client, course, take_quiz, language):
    names = titles(language)
    exam = Quiz.objects.get(is_exam=True)
    with translation.override(language):
        for index, guide in enumerate(course):
            attempt = take_quiz(client, guide.slug)
            assert attempt.passed
            html = client.get(reverse("quizzes:result", args=[guide.slug, attempt.key])).content.decode()
            link = re.search(r'<a class="button" href="([^"]+)" data-next-step>(.*?)</a>', html, re.S)
            if index + 1 < len(course):
                following = course[index + 1]
                assert link.group(1) == f"/{language}/guides/{following.slug}/"
                assert names[following.slug] in html_lib.unescape(link.group(2))
                assert language == "en" or "Next guide" not in link.group(2)  # said in the page's language
            else:
                assert link.group(1) == f"/{language}/quizzes/{exam.slug}/"


def test_a_quiz_not_passed_still_offers_the_next_guide_and_the_guide_again(client, course, take_quiz):
    attempt = take_quiz(client, course[0].slug, correct=0)
    assert not attempt.passed
    html = client.get(reverse("quizzes:result", args=[course[0].slug, attempt.key])).content.decode()
    assert f'href="/en/guides/{course[1].slug}/" data-next-step' in html
    assert f'<a href="/en/guides/{course[0].slug}/">Read the guide again</a>' in html


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_course_page_and_the_dashboard_show_progress_with_titles(
    learner_client, learner, course, take_quiz, language
):
    client, (first, second, third) = learner_client, course[:3]
    with translation.override(language):
        client.get(reverse("course:guide_detail", args=[first.slug]))  # read, as the guide view records it
        take_quiz(client, first.slug)  # passed
        take_quiz(client, second.slug, correct=1)  # tried, not passed
    names = titles(language)
    overview = client.get(f"/{language}/course/").content.decode()
    progress = re.search(r'<div class="panel course-progress".*?</div>', overview, re.S).group(0)
    assert f'href="/{language}/quizzes/{second.slug}/"' in progress  # go on with the first quiz not passed
    assert 'value="1"' in progress and f'max="{len(course)}"' in progress
    item = {g.slug: re.search(rf'<li id="guide-{g.slug}">.*?</li>', overview, re.S).group(0) for g in course[:3]}
    assert "progress-passed" in item[first.slug] and re.search(r"\(100\s?%\)", item[first.slug])
    assert "progress-tried" in item[second.slug]
    assert "progress-passed" not in item[third.slug] and "progress-tried" not in item[third.slug]

    dashboard = client.get(f"/{language}/accounts/dashboard/").content.decode()
    section = html_lib.unescape(
        re.search(r'<section aria-labelledby="reads-title">.*?</section>', dashboard, re.S).group(0)
    )
    for guide in course:
        assert f'href="/{language}/guides/{guide.slug}/"' in section
        assert names[guide.slug] in section  # the title in the learner's language
        assert f">{guide.slug}<" not in section and f": {guide.slug}" not in section  # no slug shown
    passed_item = re.search(rf'<li class="is-passed">\s*<a href="/{language}/guides/{first.slug}/">', section)
    assert passed_item is not None
    assert section.count('class="is-passed"') == 1
    assert GuideRead.objects.filter(user=learner).count() == 1


def test_a_signed_out_visitor_sees_the_progress_of_quizzes_taken_in_this_browser(client, course, take_quiz):
    cached = client.get("/en/course/").content.decode()  # no session yet: the page everyone gets
    assert "course-progress" not in cached
    take_quiz(client, course[0].slug)
    mine = client.get("/en/course/").content.decode()
    assert "course-progress" in mine and f'href="/en/guides/{course[1].slug}/"' in mine
    from django.test import Client

    assert "course-progress" not in Client().get("/en/course/").content.decode()


def test_when_every_guide_quiz_is_passed_the_course_page_offers_the_exam(learner_client, course, take_quiz):
    for guide in course:
        take_quiz(learner_client, guide.slug)
    overview = learner_client.get("/en/course/").content.decode()
    progress = re.search(r'<div class="panel course-progress".*?</div>', overview, re.S).group(0)
    assert '<a class="button" href="/en/quizzes/final-exam/">' in progress


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_passed_exam_reads_as_a_success_and_links_its_certificate(
    learner_client, course, take_quiz, language, settings, tmp_path
):
    from certificates.models import Certificate

    settings.CERT_KEY_DIR = tmp_path / "keys"

    with translation.override(language):
        attempt = take_quiz(learner_client, "final-exam")
    assert attempt.passed
    result = learner_client.get(f"/{language}/quizzes/final-exam/attempts/{attempt.key}/result/").content.decode()
    assert '<div class="feedback correct score" role="status">' in result
    page = learner_client.get(f"/{language}/quizzes/final-exam/").content.decode()
    assert '<div class="feedback correct score" role="status">' in page
    main = page[page.index('<main id="main"') :]
    assert "message-error" not in main  # the cool-down after a pass is news, not an error
    claim = reverse("certificates:claim", args=["final-exam", attempt.key]).replace("/en/", f"/{language}/")
    assert f'action="{claim}"' in page
    assert learner_client.post(claim).status_code == 302
    certificate = Certificate.objects.get()
    page = learner_client.get(f"/{language}/quizzes/final-exam/").content.decode()
    assert f'href="/{language}/certificates/{certificate.display_id}/"' in page


def hero(html: str) -> str:
    return re.search(r'<section class="hero">.*?</section>', html, re.S).group(0)


def card_of(html: str, slug: str, language: str = "en") -> str:
    return re.search(rf'<li class="card">(?:(?!</li>).)*?href="/{language}/guides/{slug}/".*?</li>', html, re.S).group(
        0
    )


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_learner_with_the_certificate_sees_the_course_finished_on_every_page(
    learner_client, course, take_quiz, language, settings, tmp_path
):
    from certificates.models import Certificate

    settings.CERT_KEY_DIR = tmp_path / "keys"

    def dashboard_section() -> str:
        dashboard = learner_client.get(f"/{language}/accounts/dashboard/").text
        return re.search(r'<section aria-labelledby="reads-title">.*?</section>', dashboard, re.S).group(0)

    with translation.override(language):
        attempt = take_quiz(learner_client, "final-exam")
        claim = reverse("quizzes:result", args=["final-exam", attempt.key])
        assert f'href="{claim}"' in dashboard_section()  # passed: the certificate is to be claimed there
        learner_client.post(reverse("certificates:claim", args=["final-exam", attempt.key]))
        finished, start = gettext("You have finished the course."), gettext("Start the course")
    assert language == "en" or finished != "You have finished the course."  # said in the page's language
    certificate = f'href="/{language}/certificates/{Certificate.objects.get().display_id}/"'
    exam = f'href="/{language}/quizzes/final-exam/"'

    home = hero(learner_client.get(f"/{language}/").text)
    assert finished in home and certificate in home and start not in home
    for path in ("guides/", "course/"):  # the course's index of guides, and the course page
        page = learner_client.get(f"/{language}/{path}").text
        panel = re.search(r'<div class="panel course-progress".*?</div>', page, re.S).group(0)
        assert finished in panel and certificate in panel and exam not in panel
    section = dashboard_section()  # the section cached before the claim is not shown again
    assert finished in section and certificate in section and exam not in section


def test_the_home_page_says_where_to_go_on_guide_quiz_exam_certificate(
    learner_client, course, take_quiz, settings, tmp_path
):
    settings.CERT_KEY_DIR = tmp_path / "keys"
    first, second = course[:2]
    names = titles("en")

    def home_button() -> tuple[str, str]:
        link = re.search(r'<a class="button" href="([^"]+)">(.*?)</a>', hero(learner_client.get("/en/").text), re.S)
        return link.group(1), html_lib.unescape(link.group(2))

    assert home_button() == (f"/en/guides/{first.slug}/", "Start the course")
    learner_client.get(reverse("course:guide_detail", args=[first.slug]))  # opened: its quiz is next
    assert home_button() == (f"/en/quizzes/{first.slug}/", f"Continue: the quiz of guide 1, {names[first.slug]}")
    take_quiz(learner_client, first.slug)
    assert home_button() == (f"/en/guides/{second.slug}/", f"Continue: guide 2, {names[second.slug]}")
    for guide in course[1:]:
        take_quiz(learner_client, guide.slug)
    assert home_button() == ("/en/quizzes/final-exam/", "Continue: the final exam")
    attempt = take_quiz(learner_client, "final-exam")
    result = reverse("quizzes:result", args=["final-exam", attempt.key])
    assert home_button() == (result, "Claim your certificate")  # where the claim is made


def test_the_guides_cards_show_the_learners_progress_and_nothing_to_others(client, course, take_quiz):
    first, second, third = course[:3]
    assert "progress-tag" not in client.get("/en/guides/").text  # the page cached for every visitor
    take_quiz(client, first.slug)  # passed, in this browser
    take_quiz(client, second.slug, correct=1)  # tried
    page = client.get("/en/guides/").text
    assert "progress-passed" in card_of(page, first.slug) and "Quiz passed" in card_of(page, first.slug)
    assert "progress-tried" in card_of(page, second.slug)
    assert "progress-passed" not in card_of(page, third.slug) and "progress-tried" not in card_of(page, third.slug)
    panel = re.search(r'<div class="panel course-progress".*?</div>', page, re.S).group(0)
    assert f'href="/en/quizzes/{second.slug}/"' in panel  # go on with the quiz not passed yet
    assert "progress-tag" not in Client().get("/en/guides/").text
