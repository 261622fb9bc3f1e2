"""Arbitrary lab settings through the API and the web form: each gets a 2xx/3xx (a stored run
whose settings are valid) or a 4xx with a message, never a 500, and invalid settings never
create a run. The trainer's own validator is fuzzed in tests/labs/training/."""

import json

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import translation
from django.utils.html import escape
from django.utils.translation import gettext
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from accounts.models import ApiToken
from labs.models import LabRun
from labs.training import config as lab_config
from tests.factories import TINY_RUN

pytestmark = pytest.mark.slow  # bin/unit leaves it out (tests/conftest.py)

VALID = TINY_RUN
FIELDS = list(VALID)
VALID_FORM = {name: "" if value is None else str(value) for name, value in VALID.items()}
DIGITS = "0123456789०१२३४५६७८९٠١٢٣٤٥٦٧٨٩"

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**80), max_value=2**80)
    | st.floats(allow_nan=True, allow_infinity=True)  # json.dumps writes NaN and Infinity, json.loads reads them
    | st.text(max_size=40),
    lambda children: st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=8), children, max_size=3),
    max_leaves=6,
)
texts = st.one_of(
    st.text(alphabet=DIGITS + ".,eE+- ", max_size=12),
    st.text(max_size=20),
    st.sampled_from(["", " 64 ", "64.0", "1e3", "0x40", "١٦", "०.०५", "nan", "inf", "None", "LAYER", "9" * 5000]),
)
valid_values = {
    "task": st.sampled_from(lab_config.TASKS),
    "norm": st.sampled_from(lab_config.NORMS),
    "effective_batch_size": st.sampled_from([1, 2, 8, 16, 64, 256, 300]),
    "accumulation_steps": st.sampled_from([1, 2, 3, 4, 64, 65]),
    "loss_scaling": st.sampled_from(lab_config.LOSS_SCALINGS),
    "optimizer": st.sampled_from(lab_config.OPTIMIZERS),
    "learning_rate": st.sampled_from([1e-5, 0.05, 10.0, 0.0, 11.0]),
    "steps": st.sampled_from([1, 3, 250, 500, 501]),
    "seed": st.sampled_from([0, 7, 2**31 - 1, 2**31]),
    "grad_clip": st.sampled_from([None, 0.0, 1.0, 100.0, 100.5]),
}


@st.composite
def valid_settings(draw) -> dict:
    """Settings every rule accepts, in the types a JSON client sends."""
    task = draw(st.sampled_from(lab_config.TASKS))
    batch = draw(st.sampled_from([1, 2, 4, 8, 16, 32, 64, 128, 256]))
    n = draw(st.sampled_from([n for n in (1, 2, 4, 8, 16, 32, 64) if batch % n == 0]))
    one_sample_mlp = task == "digits-mlp" and batch // n < 2  # BatchNorm cannot train there
    return {
        "task": task,
        "norm": draw(st.sampled_from([norm for norm in lab_config.NORMS if not (one_sample_mlp and norm == "batch")])),
        "effective_batch_size": batch,
        "accumulation_steps": n,
        "loss_scaling": draw(st.sampled_from(lab_config.LOSS_SCALINGS)),
        "optimizer": draw(st.sampled_from(lab_config.OPTIMIZERS)),
        "learning_rate": draw(st.floats(min_value=1e-5, max_value=10.0)),
        "steps": draw(st.integers(1, min(500, lab_config.SAMPLE_BUDGET // batch))),
        "seed": draw(st.integers(*lab_config.SEED_RANGE)),
        "grad_clip": draw(st.none() | st.floats(min_value=0.001, max_value=100.0)),
    }


@st.composite
def near_valid(draw, odd: st.SearchStrategy) -> dict:
    """Mostly plausible settings (edges of every range included) with a few fields broken,
    dropped or added, so the cross-field rules are reached as well as the per-field ones."""
    data = {name: draw(valid_values[name]) for name in FIELDS}
    for name in draw(st.lists(st.sampled_from(FIELDS), max_size=3, unique=True)):
        if draw(st.booleans()):
            del data[name]
        else:
            data[name] = draw(odd)
    data.update(draw(st.dictionaries(st.text(max_size=10), odd, max_size=2)))
    return data


@pytest.fixture
def lab_limits_out_of_the_way(settings):
    """Quotas and rate limits have their own tests; here every example must reach validation."""
    settings.RATE_LIMITS = {**settings.RATE_LIMITS, "lab_submit": "100000/h"}
    settings.LAB_MAX_ACTIVE_RUNS = 100_000
    settings.LAB_DAILY_SAMPLE_BUDGET = 10**12


def _assert_run_is_valid(run: LabRun) -> None:
    config, errors = lab_config.validate_config(run.config)
    assert config is not None, errors
    assert config.to_dict() == run.config


@pytest.fixture
def bearer(learner) -> dict[str, str]:
    _token, raw = ApiToken.issue(user=learner, name="fuzz")
    return {"Authorization": f"Bearer {raw}"}


HYPOTHESIS = {"deadline": None, "suppress_health_check": [HealthCheck.function_scoped_fixture]}


@settings(max_examples=300, **HYPOTHESIS)
@given(body=st.one_of(valid_settings(), near_valid(json_values), json_values, st.binary(max_size=100)))
@example(body={**VALID, "steps": 500, "effective_batch_size": 256})  # over the sample budget
@example(body={**VALID, "effective_batch_size": 2, "accumulation_steps": 64})  # N larger than the batch
@example(body={**VALID, "learning_rate": float("nan")})
@example(body={**VALID, "norm": "batch", "effective_batch_size": 4, "accumulation_steps": 4})  # torch cannot train it
@example(body={**VALID, "seed": 2**80})
@example(body=VALID)
def test_the_api_answers_every_body_with_a_run_or_a_message(client, bearer, lab_limits_out_of_the_way, body):
    raw = body if isinstance(body, bytes) else json.dumps(body).encode()
    before = LabRun.objects.count()
    response = client.post("/api/labs/runs", raw, content_type="application/json", headers=bearer)
    assert response.status_code in (201, 400), response.content[:300]
    if response.status_code == 400:
        assert response.json()["error"]
        assert LabRun.objects.count() == before, "invalid settings created a run"
        return
    assert LabRun.objects.count() == before + 1
    _assert_run_is_valid(LabRun.objects.get(pk=response.json()["id"]))


@pytest.fixture
def browser(learner) -> Client:
    client = Client()
    client.force_login(learner)
    return client


@st.composite
def form_posts(draw) -> list[tuple[str, str]]:
    """The run form as a browser (or anyone) could post it: text values, fields missing,
    repeated or unknown."""
    data = draw(st.one_of(valid_settings(), near_valid(texts)))
    pairs = [(name, "" if value is None else str(value)) for name, value in data.items()]
    pairs += draw(st.lists(st.tuples(st.sampled_from(FIELDS), texts), max_size=3))  # duplicated fields
    return draw(st.permutations(pairs))


@settings(max_examples=150, **HYPOTHESIS)
@given(pairs=form_posts())
@example(pairs=list(VALID_FORM.items()))
@example(pairs=list({**VALID_FORM, "effective_batch_size": "१६", "learning_rate": "٠٫٠٥"}.items()))  # other digits
@example(pairs=[*VALID_FORM.items(), ("steps", "501")])  # a repeated field: the last one counts
def test_the_web_form_answers_every_post_with_a_run_or_its_errors(lab_limits_out_of_the_way, browser, pairs):
    before = LabRun.objects.count()
    response = browser.post(reverse("labs:submit"), _multi(pairs))
    assert response.status_code in (302, 400), response.status_code
    if response.status_code == 400:
        html = response.content.decode()
        summary = html.partition('id="lab-form-errors"')[2].partition("</div>")[0]  # every problem, at the top
        assert "<li>" in summary, "refused without saying why"
        assert LabRun.objects.count() == before, "invalid settings created a run"
        return
    assert LabRun.objects.count() == before + 1
    run = LabRun.objects.latest("pk")
    assert response["Location"] == reverse("labs:run", args=[run.pk])
    _assert_run_is_valid(run)


def _multi(pairs: list[tuple[str, str]]) -> dict[str, list[str]]:
    """Form data with repeated names, as the test client takes it."""
    data: dict[str, list[str]] = {}
    for name, value in pairs:
        data.setdefault(name, []).append(value)
    return data


# A setting the trainer cannot run is refused with its reason, in the reader's language, by both doors.
ONE_SAMPLE_BATCH_NORM = {**VALID, "norm": "batch", "effective_batch_size": 4, "accumulation_steps": 4}
LANGUAGES = ("en", "fr", "hi")


def reason(language: str) -> str:
    """The reason in `language`, the catalog's, read through gettext: a reader's rewording never breaks the test."""
    with translation.override(language):
        said = gettext(lab_config.BATCH_NORM_NEEDS_TWO)
    assert language == "en" or said != lab_config.BATCH_NORM_NEEDS_TWO  # translated
    return said


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_api_refuses_batch_norm_on_one_sample_saying_why_in_the_readers_language(client, bearer, language):
    headers = {**bearer, "Accept-Language": language}
    body = json.dumps(ONE_SAMPLE_BATCH_NORM)
    response = client.post("/api/labs/runs", body, content_type="application/json", headers=headers)
    assert response.status_code == 400
    norm_messages = [entry["message"] for entry in response.json()["fields"] if entry["field"] == "norm"]
    assert reason(language) in norm_messages, response.json()
    assert not LabRun.objects.exists()


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_form_refuses_batch_norm_on_one_sample_saying_why_in_the_readers_language(browser, language):
    with translation.override(language):
        url = reverse("labs:submit")
    form = {name: "" if value is None else str(value) for name, value in ONE_SAMPLE_BATCH_NORM.items()}
    response = browser.post(url, form)
    assert response.status_code == 400
    assert escape(reason(language)) in response.content.decode()
    assert not LabRun.objects.exists()
