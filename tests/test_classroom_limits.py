"""One classroom, one address (README, "A workshop behind one address"): the limits counted per
address allow CLASSROOM_SIZE times their rate to an address in CLASSROOM_NETWORKS; the limits per
learner, and the log-in's limit per user name and address, stay as they are."""

import pytest
from django.core.exceptions import ImproperlyConfigured
from django.test import Client, RequestFactory
from django.urls import reverse

from config.env import env_networks
from config.ratelimit import in_classroom, limit_exceeded
from tests import factories
from tests.test_security import LOGIN_SLOW_DOWN, assert_slowed_down

CLASSROOM = "203.0.113.0/24"


@pytest.fixture
def classroom(settings):
    settings.CLASSROOM_NETWORKS = [CLASSROOM, "2001:db8:7::/48"]
    settings.CLASSROOM_SIZE = 3
    return settings


def request_from(address: str):
    return RequestFactory().post("/", REMOTE_ADDR=address)


def test_an_address_in_a_classroom_network_is_allowed_its_size_times_the_rate(clock_held, classroom):
    classroom.RATE_LIMITS = {**classroom.RATE_LIMITS, "signup": "2/h"}
    assert [limit_exceeded(request_from("203.0.113.9"), "signup") for _ in range(7)] == [False] * 6 + [True]
    assert [limit_exceeded(request_from("198.51.100.4"), "signup") for _ in range(3)] == [False, False, True]
    assert in_classroom("2001:db8:7:1::5") and not in_classroom("2001:db8:8::5") and not in_classroom("bad")


def test_a_counter_per_learner_is_the_same_in_a_classroom(clock_held, classroom):
    classroom.RATE_LIMITS = {**classroom.RATE_LIMITS, "lab_submit": "1/h"}
    request = request_from("203.0.113.9")
    assert [limit_exceeded(request, "lab_submit", key=lambda _g, _r: "learner-1") for _ in range(2)] == [False, True]


def test_without_classroom_networks_nothing_changes(clock_held, settings):
    settings.CLASSROOM_NETWORKS = []
    settings.RATE_LIMITS = {**settings.RATE_LIMITS, "signup": "1/h"}
    assert [limit_exceeded(request_from("203.0.113.9"), "signup") for _ in range(2)] == [False, True]


def signup(client: Client, n: int):
    password = "a-long-Passphrase-42"
    form = {"username": f"learner{n}", "email": f"l{n}@example.com", "full_name": f"Learner {n}"}
    return client.post(reverse("accounts:signup"), {**form, "password1": password, "password2": password})


def test_a_classroom_signs_up_more_learners_than_one_address_may(clock_held, classroom, db):
    from django.contrib.auth.models import User

    classroom.RATE_LIMITS = {**classroom.RATE_LIMITS, "signup": "2/h"}
    codes = [signup(Client(REMOTE_ADDR="203.0.113.20"), n).status_code for n in range(6)]
    assert codes == [302] * 6
    assert_slowed_down(signup(Client(REMOTE_ADDR="203.0.113.20"), 6), period=3600, message="{wait}")
    assert [signup(Client(REMOTE_ADDR="192.0.2.1"), n).status_code for n in (10, 11)] == [302, 302]
    assert signup(Client(REMOTE_ADDR="192.0.2.1"), 12).status_code == 429  # outside: the plain rate
    assert User.objects.count() == 8


def test_in_a_classroom_guessing_one_learners_password_is_as_slow_as_anywhere(clock_held, classroom, db):
    """Many learners log in from the classroom's address, but each name from it keeps its own small limit."""
    classroom.RATE_LIMITS = {**classroom.RATE_LIMITS, "login": "2/m", "login_username_address": "3/15m"}
    learner = factories.account()
    url = reverse("accounts:login")
    wrong = {"username": learner.username, "password": "not-the-password"}
    guesser = Client(REMOTE_ADDR="203.0.113.66")  # the classroom's one public address, as every client here
    assert [guesser.post(url, wrong).status_code for _ in range(3)] == [200] * 3
    assert_slowed_down(guesser.post(url, wrong), period=900, message=LOGIN_SLOW_DOWN)
    # Other learners of the classroom log in past the plain per-address rate (2/m): 6 attempts in all.
    others = [factories.account(f"learner{n}", password="another-Passphrase-43") for n in range(2)]
    for other in others:
        client = Client(REMOTE_ADDR="203.0.113.66")
        assert client.post(url, {"username": other.username, "password": "another-Passphrase-43"}).status_code == 302
        assert client.session["_auth_user_id"] == str(other.pk)
    stranger = {"username": "nobody", "password": "not-the-password"}
    assert Client(REMOTE_ADDR="203.0.113.66").post(url, stranger).status_code == 429  # the classroom's 6 are spent


def test_classroom_networks_must_read_like_networks(monkeypatch):
    monkeypatch.setenv("CLASSROOM_NETWORKS", "203.0.113.0/24, 2001:db8::/48,198.51.100.7")
    assert env_networks("CLASSROOM_NETWORKS") == ["203.0.113.0/24", "2001:db8::/48", "198.51.100.7/32"]
    monkeypatch.setenv("CLASSROOM_NETWORKS", "203.0.113.0/24, the venue")
    with pytest.raises(ImproperlyConfigured, match="'the venue' is not one"):
        env_networks("CLASSROOM_NETWORKS")
