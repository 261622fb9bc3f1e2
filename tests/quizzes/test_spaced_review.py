"""Missed questions come back on the dashboard as the questions themselves, to be answered again: a
right answer sends a question further away (1, then 3, then 7 days), a wrong one brings it back the
next day. The clock is controlled (time_machine, or `now` given to the service)."""

import re
from datetime import UTC, datetime, timedelta

import pytest
import time_machine
from django.http import QueryDict
from django.test import Client
from django.urls import reverse

from quizzes import spaced_review
from quizzes.grading import InvalidAnswer
from quizzes.models import Attempt, MissedQuestion, Question, Quiz
from quizzes.templatetags.quiz_tags import quiz_text
from tests.factories import answer_url, correct_answer, review_answer, wrong_answer

MISSED_AT = datetime(2026, 12, 1, 9, 30, tzinfo=UTC)
DAY = timedelta(days=1)
HTMX = {"HTTP_HX_REQUEST": "true"}
LANGS = ("en", "hi", "fr")


@pytest.fixture
def clock():
    """The clock, stopped at the moment of the miss; `clock.move_to(...)` moves it."""
    with time_machine.travel(MISSED_AT, tick=False) as traveller:
        yield traveller


def drawn_batch_question() -> dict:
    """A numeric question whose numbers are drawn for each sitting (27 possible draws)."""
    return {
        "id": "drawn-batch",
        "type": "numeric",
        "prompt": {lang: "Micro-batch {b}, N = {N}, {G} GPUs. Effective batch?" for lang in LANGS},
        "parameters": {"b": [4, 8, 16], "N": [2, 4, 8], "G": [1, 2, 4]},
        "formula": "b * N * G",
        "hint": {lang: "Hint: b × N × G" for lang in LANGS},
        "explanation": {lang: "Explanation: multiply the three." for lang in LANGS},
    }


def spot_bug_question() -> dict:
    loop = (
        "for i, (x, y) in enumerate(loader):\n"
        "    optimizer.zero_grad()\n"
        "    loss = loss_fn(model(x), y) / N\n"
        "    loss.backward()\n"
        "    if (i + 1) % N == 0:\n"
        "        optimizer.step()\n"
    )
    return {
        "id": "zero-grad-inside",
        "type": "spot_bug",
        "prompt": {lang: "Which line breaks accumulation?" for lang in LANGS},
        "code": loop,
        "bug_lines": [2],
        "checked_by": "zero_grad_inside",
        "hint": {lang: "Hint: where are the gradients cleared?" for lang in LANGS},
        "explanation": {lang: "Explanation: zero_grad() every micro-batch." for lang in LANGS},
    }


@pytest.fixture
def every_type(quizzes_with):
    """The demo guide quiz (single, multiple, numeric, ordering) with a drawn numeric question and
    a spot-the-bug question added."""
    quizzes_with(guide=[drawn_batch_question(), spot_bug_question()])


def miss(client, start_attempt, key: str = "pick-one", slug: str = "demo-guide") -> MissedQuestion:
    """Starts an attempt and answers the question `key` wrongly: it is scheduled for review."""
    attempt = start_attempt(client, slug)
    question = Question.objects.get(quiz__slug=slug, key=key)
    number = attempt.question_ids.index(question.pk) + 1
    assert client.post(answer_url(attempt, number), wrong_answer(attempt, number)).status_code == 302
    client.post(reverse("quizzes:finish", args=[slug, attempt.key]))
    return MissedQuestion.objects.get(question=question)


def review_url(missed: MissedQuestion) -> str:
    return reverse("quizzes:review_answer", args=[missed.pk])


def dashboard_cards(client) -> dict[str, str]:
    """The review cards the dashboard shows, by question key: each card's HTML."""
    html = client.get(reverse("accounts:dashboard")).content.decode()
    section = html.split('id="review-section"')[1].split("</section>")[0]
    cards = section.split('<li class="review-card" data-question="')[1:]
    return {card.split('"')[0]: card for card in cards}


def as_post(data: dict) -> QueryDict:
    post = QueryDict(mutable=True)
    for key, value in data.items():
        post.setlist(key, value if isinstance(value, list) else [value])
    return post


# The schedule (the service) ---------------------------------------------------------------------


@pytest.fixture
def missed_question(clock, learner, quizzes) -> MissedQuestion:
    """`pick-one`, missed by the learner at MISSED_AT in an attempt at the demo guide quiz."""
    from quizzes.services import attempt_answer, attempt_start

    quiz = Quiz.objects.get(slug="demo-guide")
    attempt = attempt_start(quiz=quiz, user=learner, owned=Attempt.objects.filter(user=learner), language="en")
    number = attempt.question_ids.index(quiz.questions.get(key="pick-one").pk) + 1
    attempt_answer(attempt=attempt, number=number, data=as_post(wrong_answer(attempt, number)))
    return MissedQuestion.objects.get(user=learner)


def test_a_miss_brings_the_question_back_the_next_day(missed_question):
    assert (missed_question.reviews_done, missed_question.due_at) == (0, MISSED_AT + DAY)


def test_each_right_answer_sends_the_question_further_away_until_it_is_done(missed_question):
    now = MISSED_AT + DAY
    for done, interval in ((1, 3), (2, 7)):
        result = spaced_review.review_answer(missed_question, as_post(review_answer(missed_question)), now)
        assert result.is_correct
        assert (missed_question.reviews_done, missed_question.due_at) == (done, now + interval * DAY)
        now += interval * DAY + timedelta(hours=5)  # answered a little late: the interval counts from the answer
    spaced_review.review_answer(missed_question, as_post(review_answer(missed_question)), now)
    missed_question.refresh_from_db()
    assert (missed_question.reviews_done, missed_question.due_at) == (3, None)


def test_a_wrong_answer_brings_the_question_back_the_next_day(missed_question):
    now = MISSED_AT + DAY
    spaced_review.review_answer(missed_question, as_post(review_answer(missed_question)), now)
    now += 3 * DAY
    result = spaced_review.review_answer(missed_question, as_post(review_answer(missed_question, right=False)), now)
    assert not result.is_correct
    missed_question.refresh_from_db()
    assert (missed_question.reviews_done, missed_question.due_at) == (0, now + DAY)
    now += DAY
    spaced_review.review_answer(missed_question, as_post(review_answer(missed_question)), now)
    assert (missed_question.reviews_done, missed_question.due_at) == (1, now + 3 * DAY)  # growing again


def test_a_question_not_due_yet_cannot_be_answered(missed_question):
    early = MISSED_AT + DAY - timedelta(minutes=1)
    with pytest.raises(spaced_review.NotDue):
        spaced_review.review_answer(missed_question, as_post(review_answer(missed_question)), early)
    spaced_review.review_answer(missed_question, as_post(review_answer(missed_question)), MISSED_AT + DAY)
    with pytest.raises(spaced_review.NotDue):  # sent twice: the first answer counts
        spaced_review.review_answer(missed_question, as_post(review_answer(missed_question)), MISSED_AT + DAY)
    missed_question.refresh_from_db()
    assert missed_question.reviews_done == 1


def test_an_unreadable_answer_changes_nothing(missed_question):
    with pytest.raises(InvalidAnswer, match="Choose an answer"):
        spaced_review.review_answer(missed_question, QueryDict(), MISSED_AT + DAY)
    missed_question.refresh_from_db()
    assert (missed_question.reviews_done, missed_question.due_at) == (0, MISSED_AT + DAY)


def test_the_options_are_shuffled_again_for_the_next_review(missed_question):
    orders = set()
    for _ in range(12):
        orders.add(tuple(missed_question.layout))
        MissedQuestion.objects.filter(pk=missed_question.pk).update(due_at=MISSED_AT)
        missed_question.refresh_from_db()
        spaced_review.review_answer(missed_question, as_post(review_answer(missed_question)), MISSED_AT + DAY)
    assert sorted(next(iter(orders))) == ["a", "b", "c", "d"]
    assert len(orders) > 1  # 24 orders: twelve reviews that all drew the same one would be broken


# The dashboard and the answers (the views), one question type each ------------------------------


def test_a_single_choice_question_comes_back_with_its_choices(clock, learner_client, every_type, start_attempt):
    missed = miss(learner_client, start_attempt, "pick-one")
    assert dashboard_cards(learner_client) == {}
    clock.move_to(MISSED_AT + DAY)
    card = dashboard_cards(learner_client)["pick-one"]
    assert "Prompt of pick-one?" in card
    assert card.count('type="radio" name="choice"') == 4
    assert all(f"Option {letter} of pick-one" in card for letter in "abcd")
    assert "Mark reviewed" not in card

    reply = learner_client.post(review_url(missed), review_answer(missed), **HTMX)
    assert reply.status_code == 200
    assert reply.text.lstrip().startswith(f'<div class="card question review-question" id="review-{missed.pk}"')
    assert "Correct." in reply.text and "right answer" in reply.text  # a guide quiz's key is open
    assert "Explanation of pick-one" in reply.text
    assert "This question comes back on 5 Dec 2026." in reply.text
    missed.refresh_from_db()
    assert (missed.reviews_done, missed.due_at) == (1, MISSED_AT + 4 * DAY)
    assert dashboard_cards(learner_client) == {}


def test_a_multiple_choice_question_answered_wrongly_comes_back_the_next_day(
    clock, learner_client, every_type, start_attempt
):
    missed = miss(learner_client, start_attempt, "pick-many")
    clock.move_to(MISSED_AT + DAY)
    card = dashboard_cards(learner_client)["pick-many"]
    assert card.count('type="checkbox" name="choice"') == 4
    assert "Select every answer that applies." in card

    reply = learner_client.post(review_url(missed), review_answer(missed, right=False), **HTMX)
    assert reply.status_code == 200
    assert "Not quite." in reply.text and "Hint for pick-many" in reply.text
    assert "This question comes back on 3 Dec 2026." in reply.text
    missed.refresh_from_db()
    assert (missed.reviews_done, missed.due_at) == (0, MISSED_AT + 2 * DAY)
    clock.move_to(MISSED_AT + 2 * DAY)
    assert list(dashboard_cards(learner_client)) == ["pick-many"]


def test_a_numeric_question_comes_back_with_numbers_drawn_for_the_review(
    clock, learner_client, every_type, start_attempt
):
    missed = miss(learner_client, start_attempt, "drawn-batch")
    assert missed.parameters.keys() == {"b", "N", "G"}  # drawn when it was missed, for its first review
    # Numbers other than the attempt's, so that the test tells which ones are asked and graded.
    attempt = missed.answer.attempt
    attempt.parameters[str(missed.question_id)] = {"b": 4, "N": 2, "G": 1}
    attempt.save(update_fields=["parameters"])
    MissedQuestion.objects.filter(pk=missed.pk).update(parameters={"b": 16, "N": 8, "G": 4})
    missed.refresh_from_db()
    clock.move_to(MISSED_AT + DAY)
    card = dashboard_cards(learner_client)["drawn-batch"]
    assert "Micro-batch 16, N = 8, 4 GPUs. Effective batch?" in card
    assert 'name="value"' in card

    assert "Not quite." in learner_client.post(review_url(missed), {"value": "8"}, **HTMX).text  # the attempt's key
    clock.move_to(MISSED_AT + 2 * DAY)
    missed.refresh_from_db()
    numbers = missed.parameters  # drawn again after that answer
    assert numbers["b"] in (4, 8, 16) and numbers["N"] in (2, 4, 8) and numbers["G"] in (1, 2, 4)
    card = dashboard_cards(learner_client)["drawn-batch"]
    assert f"Micro-batch {numbers['b']:g}, N = {numbers['N']:g}, {numbers['G']:g} GPUs." in card
    key = numbers["b"] * numbers["N"] * numbers["G"]
    reply = learner_client.post(review_url(missed), {"value": f"{key:g}"}, **HTMX)
    assert "Correct." in reply.text
    assert f"Micro-batch {numbers['b']:g}, N = {numbers['N']:g}, {numbers['G']:g} GPUs." in reply.text  # as answered
    assert "Explanation: multiply the three." in reply.text


def test_an_ordering_question_comes_back_with_its_steps_to_place(clock, learner_client, every_type, start_attempt):
    missed = miss(learner_client, start_attempt, "window-order")
    clock.move_to(MISSED_AT + DAY)
    card = dashboard_cards(learner_client)["window-order"]
    assert all(f'name="rank-{n}"' in card for n in range(1, 5))
    reply = learner_client.post(review_url(missed), review_answer(missed), **HTMX)
    assert "Correct." in reply.text
    assert "Correct order: Step zero → Step forward → Step backward → Step step" in reply.text
    bad = {"rank-1": "1", "rank-2": "1", "rank-3": "2", "rank-4": "3"}
    MissedQuestion.objects.filter(pk=missed.pk).update(due_at=MISSED_AT + DAY)
    refused = learner_client.post(review_url(missed), bad, **HTMX)
    assert refused.status_code == 400
    assert "Give each step a different position, from 1 to 4." in refused.text
    assert 'name="rank-1"' in refused.text  # the form again, to correct


def test_a_spot_the_bug_question_comes_back_with_its_lines(clock, learner_client, every_type, start_attempt):
    missed = miss(learner_client, start_attempt, "zero-grad-inside")
    clock.move_to(MISSED_AT + DAY)
    card = dashboard_cards(learner_client)["zero-grad-inside"]
    assert card.count('type="checkbox" name="choice"') == 6
    assert "<code>    optimizer.zero_grad()</code>" in card
    reply = learner_client.post(review_url(missed), review_answer(missed, right=False), **HTMX)
    assert "Not quite." in reply.text and "Hint: where are the gradients cleared?" in reply.text
    assert "the bug" in reply.text  # the guide quiz's key: line 2
    missed.refresh_from_db()
    assert missed.due_at == MISSED_AT + 2 * DAY


def test_without_javascript_the_form_post_gives_the_graded_question_on_a_page(
    clock, learner, learner_client, quizzes, start_attempt
):
    missed = miss(learner_client, start_attempt, "pick-one")
    browser = Client(enforce_csrf_checks=True)  # the learner in a browser without JavaScript
    browser.force_login(learner)
    clock.move_to(MISSED_AT + DAY)
    card = dashboard_cards(browser)["pick-one"]
    assert re.search(r'<form method="post" action="([^"]+)"', card)[1] == review_url(missed)
    assert browser.post(review_url(missed), review_answer(missed)).status_code == 403  # no CSRF token
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', card)[1]
    page = browser.post(review_url(missed), {**review_answer(missed), "csrfmiddlewaretoken": token})
    assert page.status_code == 200
    assert "<html" in page.text and "Correct." in page.text
    assert f'id="review-{missed.pk}"' in page.text
    assert f'href="{reverse("accounts:dashboard")}"' in page.text
    missed.refresh_from_db()
    assert missed.reviews_done == 1


def test_right_answers_bring_it_back_after_1_3_and_7_days_then_never(clock, learner_client, quizzes, start_attempt):
    missed = miss(learner_client, start_attempt, "effective-batch")
    moment = MISSED_AT
    for interval in (1, 3, 7):
        clock.move_to(moment + interval * DAY - timedelta(minutes=1))
        assert dashboard_cards(learner_client) == {}, f"shown before its {interval}-day review"
        moment += interval * DAY
        clock.move_to(moment)
        assert list(dashboard_cards(learner_client)) == ["effective-batch"]
        missed.refresh_from_db()
        assert learner_client.post(review_url(missed), review_answer(missed)).status_code == 200
        assert dashboard_cards(learner_client) == {}
    clock.move_to(moment + 2 * DAY)  # (the session, signed in on day 0, lasts two weeks)
    assert dashboard_cards(learner_client) == {}
    missed.refresh_from_db()
    assert missed.due_at is None


def test_answers_that_cannot_count_say_why(clock, learner_client, client, quizzes, start_attempt):
    from tests.factories import account

    missed = miss(learner_client, start_attempt, "pick-one")
    early = learner_client.post(review_url(missed), review_answer(missed), **HTMX)
    assert early.status_code == 409
    assert "This question is not due for review yet" in early.text
    clock.move_to(MISSED_AT + DAY)
    empty = learner_client.post(review_url(missed), {}, **HTMX)
    assert empty.status_code == 400 and "Choose an answer." in empty.text
    client.force_login(account("ravi", full_name="Ravi"))
    assert client.post(review_url(missed), review_answer(missed)).status_code == 404  # another learner's
    assert learner_client.get(review_url(missed)).status_code == 405
    missed.refresh_from_db()
    assert (missed.reviews_done, missed.due_at) == (0, MISSED_AT + DAY)


def test_the_card_says_when_the_next_review_is(clock, learner_client, quizzes, start_attempt):
    miss(learner_client, start_attempt)
    html = learner_client.get(reverse("accounts:dashboard")).content.decode()
    assert "Nothing to review today. The next question you missed comes back on 2 Dec 2026." in html


def test_the_dashboard_reads_the_due_and_the_next_reviews_in_one_query(clock, learner_client, quizzes, start_attempt):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    missed = miss(learner_client, start_attempt)
    for day, shown in ((0, []), (1, [missed.question.key])):
        clock.move_to(MISSED_AT + timedelta(days=day))
        with CaptureQueriesContext(connection) as captured:
            assert list(dashboard_cards(learner_client)) == shown
        assert sum('FROM "quizzes_missedquestion"' in q["sql"] for q in captured.captured_queries) == 1


def test_a_new_miss_starts_the_schedule_again(clock, learner_client, quizzes, start_attempt):
    missed = miss(learner_client, start_attempt)
    clock.move_to(MISSED_AT + DAY)
    learner_client.post(review_url(missed), review_answer(missed))
    clock.move_to(MISSED_AT + 2 * DAY)
    attempt = start_attempt(learner_client)
    number = attempt.question_ids.index(missed.question_id) + 1
    response = learner_client.post(answer_url(attempt, number), wrong_answer(attempt, number))
    assert response.status_code == 302
    missed.refresh_from_db()
    assert (missed.reviews_done, missed.due_at) == (0, MISSED_AT + 3 * DAY)  # 2 days + 1


def test_signed_out_misses_are_not_scheduled(client, quizzes, start_attempt):
    attempt = start_attempt(client)
    assert client.post(answer_url(attempt, 1), wrong_answer(attempt, 1)).status_code == 302
    assert client.post(answer_url(attempt, 2), correct_answer(attempt, 2)).status_code == 302
    assert not MissedQuestion.objects.exists()


def test_a_wrong_answer_links_the_objective_that_teaches_the_question(clock, learner_client, synced_content):
    from quizzes.services import quizzes_sync

    quizzes_sync()
    quiz = Quiz.objects.get(slug="what-is-gradient-accumulation")
    response = learner_client.post(reverse("quizzes:start", args=[quiz.slug]))
    attempt = quiz.attempts.get(key=response["Location"].rstrip("/").split("/")[-1])
    learner_client.post(answer_url(attempt, 1), wrong_answer(attempt, 1))
    missed = MissedQuestion.objects.get(question_id=attempt.question_ids[0])
    clock.move_to(MISSED_AT + DAY)
    reply = learner_client.post(review_url(missed), review_answer(missed, right=False), **HTMX).text
    guide_url = reverse("course:guide_detail", args=[quiz.guide.slug])
    assert f'href="{guide_url}#objective-{missed.question.objective}"' in reply
    assert quiz_text(missed.question.explanation["en"]) in reply  # a guide quiz's explanations are open


def test_an_exam_question_keeps_its_key_and_explanation_closed_until_the_exam_is_passed(
    clock, learner_client, quizzes, start_attempt
):
    attempt = start_attempt(learner_client, "final-exam")
    question = next(q for q in Question.objects.filter(pk__in=attempt.question_ids) if q.type == "single")
    number = attempt.question_ids.index(question.pk) + 1
    learner_client.post(answer_url(attempt, number), wrong_answer(attempt, number))
    missed = MissedQuestion.objects.get(question=question)
    clock.move_to(MISSED_AT + DAY)
    assert question.key in dashboard_cards(learner_client)
    reply = learner_client.post(review_url(missed), review_answer(missed, right=False), **HTMX).text
    assert "Not quite." in reply
    assert f"Explanation of {question.key}" not in reply  # the exam's questions stay in the bank
    assert "right answer" not in reply


def test_review_answers_count_against_the_answer_rate(
    clock_held, clock, learner_client, quizzes, start_attempt, settings
):
    missed = miss(learner_client, start_attempt, "pick-one")
    settings.RATE_LIMITS = {**settings.RATE_LIMITS, "quiz_answer": "1/m"}
    clock.move_to(MISSED_AT + DAY)
    assert learner_client.post(review_url(missed), {}, **HTMX).status_code == 400  # counted too
    refused = learner_client.post(review_url(missed), review_answer(missed), **HTMX)
    assert refused.status_code == 429
    assert (refused["HX-Retarget"], refused["HX-Reswap"]) == (f"#review-{missed.pk}-wait", "innerHTML")
    assert "Please wait" in refused.text and "<html" not in refused.text
    assert f'id="review-{missed.pk}-wait"' in dashboard_cards(learner_client)["pick-one"]  # where it goes
    missed.refresh_from_db()
    assert missed.reviews_done == 0  # nothing was read or written
