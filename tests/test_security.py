"""Security: response headers, production cookies and HSTS, and the rate limits on everything
that costs something or could be guessed at (log-in, answers, lab submissions, certificate
look-ups). Rate limits count in the real Redis cache. `manage.py check --deploy` with production
settings is in tests/test_settings.py."""

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from django.conf import settings as django_settings
from django.test import Client
from django.urls import reverse

from accounts.models import ApiToken
from labs.models import LabRun
from labs.training.config import DEFAULT_CONFIG
from quizzes.models import Answer, Attempt, Question, Quiz

ROOT = Path(__file__).resolve().parent.parent
SLOW_DOWN = "You are going a little fast. Please wait {wait} and try again."
LOGIN_SLOW_DOWN = "Too many log-in attempts from your network. Please wait {wait} and try again."
TINY_RUN = {**DEFAULT_CONFIG, "task": "digits-mlp", "steps": 3, "effective_batch_size": 16}


@pytest.fixture(autouse=True)
def quick_passwords(settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


# Headers ---------------------------------------------------------------------------------------


def policy(response) -> dict[str, list[str]]:
    directives = [part.split() for part in response["Content-Security-Policy"].split(";") if part.strip()]
    return {words[0]: words[1:] for words in directives}


PAGES = {  # path: status
    "/en/": 200,
    "/hi/guides/what-is-gradient-accumulation/": 200,
    "/fr/quizzes/": 200,
    "/en/labs/": 200,
    "/en/accounts/login/": 200,
    "/en/no-such-page/": 404,
    "/api/openapi.json": 200,
    "/api/docs/": 200,
}


def test_every_response_carries_the_security_headers(client, synced_content):
    for path, status in PAGES.items():
        response = client.get(path)
        assert response.status_code == status, path
        csp = policy(response)
        assert csp["default-src"] == ["'self'"]
        assert csp["script-src"] == ["'self'"], path  # no inline script, no eval, no other origin
        assert csp["style-src"] == ["'self'"], path  # style sheets: ours only
        assert csp["style-src-attr"] == ["'unsafe-inline'"]  # style="" attributes only (table column alignment)
        assert csp["object-src"] == ["'none'"] and csp["base-uri"] == ["'self'"] and csp["form-action"] == ["'self'"]
        assert csp["frame-ancestors"] == ["'none'"]
        assert not any("'unsafe-eval'" in sources or "*" in sources for sources in csp.values())
        assert response["X-Content-Type-Options"] == "nosniff"
        assert response["X-Frame-Options"] == "DENY"
        assert response["Referrer-Policy"] == "same-origin"
        assert "Strict-Transport-Security" not in response  # plain HTTP on one machine: no HSTS


def test_pages_hold_nothing_the_policy_would_block(client, synced_content):
    for path in PAGES:
        html = client.get(path).content.decode()
        assert not re.search(r"<script(?![^>]*\bsrc=)[^>]*>", html), f"an inline script in {path}"
        assert "<style" not in html, f"an inline style sheet in {path}"
        assert not re.search(r"<[a-zA-Z][^>]*\son[a-z]+\s*=", html), f"an inline event handler in {path}"
        assert not re.search(r"(href|src|action)=[\"']?\s*javascript:", html, re.IGNORECASE), path


# Production (HTTPS=true), in a fresh process with the environment an operator sets -------------

PRODUCTION_SCRIPT = r"""
import json
import django

django.setup()
from django.contrib.auth.models import User
from django.core.management import call_command
from django.test import Client

call_command("migrate", verbosity=0)
User.objects.create_user("ada", password="a-long-Passphrase-42")
browser = Client(HTTP_HOST="course.example.org")
page = browser.get("/en/accounts/login/", secure=True)
login = browser.post(
    "/en/accounts/login/", {"username": "ada", "password": "a-long-Passphrase-42"}, secure=True
)
plain = browser.get("/en/", secure=False)
cookie = lambda response, name: dict(response.cookies[name].items()) if name in response.cookies else None
print(json.dumps({
    "status": page.status_code,
    "hsts": page.get("Strict-Transport-Security"),
    "csrf_cookie": cookie(page, "csrftoken"),
    "login_status": login.status_code,
    "session_cookie": cookie(login, "sessionid"),
    "plain_status": plain.status_code,
    "plain_location": plain.get("Location"),
}))
"""


@pytest.fixture(scope="module")
def production(tmp_path_factory) -> dict:
    state = tmp_path_factory.mktemp("production-state")
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "PYTHONPATH": str(ROOT),
        "STATE_DIR": str(state),
        "DATABASE_URL": f"sqlite:///{state / 'db.sqlite3'}",
        "REDIS_URL": django_settings.REDIS_URL,
        "CACHE_KEY_PREFIX": "security-test",  # its rate-limit counters stay apart from this process'
        "SECRET_KEY": "k" * 20 + "-production-secret-from-the-environment-0123456789",
        "HTTPS": "true",
        "ALLOWED_HOSTS": "course.example.org",
        "SITE_URL": "https://course.example.org",
        "DEBUG": "false",
    }
    result = subprocess.run(
        [sys.executable, "-c", PRODUCTION_SCRIPT], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr[-3000:]
    return json.loads(result.stdout.strip().splitlines()[-1])


def test_production_sends_hsts_with_subdomains_and_preload(production):
    assert production["status"] == 200
    hsts = production["hsts"]
    assert hsts and "includeSubDomains" in hsts and "preload" in hsts
    assert int(re.search(r"max-age=(\d+)", hsts).group(1)) >= 31536000


def test_production_cookies_travel_only_over_https(production):
    csrf, session = production["csrf_cookie"], production["session_cookie"]
    assert csrf is not None and csrf["secure"] is True
    assert production["login_status"] == 302
    assert session is not None and session["secure"] is True and session["httponly"] is True
    assert session["samesite"] == "Lax"


def test_production_redirects_plain_http_to_https(production):
    assert production["plain_status"] == 301
    assert production["plain_location"] == "https://course.example.org/en/"


# Rate limits -----------------------------------------------------------------------------------


def assert_slowed_down(response, *, api: bool = False, period: int = 60, message: str = SLOW_DOWN) -> int:
    """A 429 whose Retry-After is the wait until the counter's window (of `period` seconds) ends,
    and whose message (`message`, with {wait}) says that wait in words; returns the wait."""
    from config.waits import wait_in_words

    assert response.status_code == 429
    wait = int(response["Retry-After"])
    assert 1 <= wait <= period
    if api:
        assert response["Content-Type"] == "application/json"
        said = response.json()["error"]
    else:
        said = response.content.decode()
    assert message.format(wait=wait_in_words(wait)) in said
    return wait


def test_logging_in_is_limited_per_address(clock_held, client, learner):
    url = reverse("accounts:login")
    codes = [client.post(url, {"username": f"guess-{n}", "password": "not-it"}).status_code for n in range(20)]
    assert set(codes) == {200}  # the form again, with its error
    blocked = client.post(url, {"username": learner.username, "password": "a-long-Passphrase-42"})
    assert_slowed_down(blocked, message=LOGIN_SLOW_DOWN)
    assert "_auth_user_id" not in client.session  # even the right password waits
    wrong = {"username": learner.username, "password": "not-the-password"}
    assert Client(REMOTE_ADDR="192.0.2.7").post(url, wrong).status_code == 200  # another address is not held up


@pytest.fixture
def staff_member(db):
    from django.contrib.auth.models import User

    return User.objects.create_superuser("root", "root@example.com", "a-long-Passphrase-42")


@pytest.mark.parametrize(("url", "account"), [("/en/accounts/login/", "learner"), ("/admin/login/", "staff_member")])
def test_wrong_passwords_from_one_address_do_not_lock_the_account_out_elsewhere(clock_held, request, url, account):
    """Guessing stays slow, per user name and address: past ten attempts at one name from one address,
    that address waits. The account's owner, elsewhere, still logs in: anyone who knows a user name
    could otherwise lock its learner (or the staff who revoke certificates) out by typing it ten times."""
    user = request.getfixturevalue(account)
    wrong = {"username": user.username, "password": "not-the-password"}
    attacker = Client(REMOTE_ADDR="192.0.2.66")
    assert {attacker.post(url, wrong).status_code for _ in range(10)} == {200}  # the form again, with its error
    refused = attacker.post(url, {**wrong, "username": user.username.upper()})  # case variants share a counter
    assert_slowed_down(refused, period=900, message=LOGIN_SLOW_DOWN)
    owner = Client(REMOTE_ADDR="198.51.100.9")
    assert owner.post(url, {"username": user.username, "password": "a-long-Passphrase-42"}).status_code == 302
    assert owner.session["_auth_user_id"] == str(user.pk)
    assert_slowed_down(attacker.post(url, wrong), period=900, message=LOGIN_SLOW_DOWN)  # still refused
    assert "_auth_user_id" not in attacker.session
    # Another name, its own count: so the per-address limit (20 a minute) was not the one that refused.
    assert attacker.post(url, {**wrong, "username": "someone-else"}).status_code == 200


def test_addresses_of_one_ipv6_network_share_the_count_for_a_user_name(clock_held, client, learner):
    """One machine has a whole /64 of IPv6 addresses: changing address within it does not buy guesses."""
    url = reverse("accounts:login")
    wrong = {"username": learner.username, "password": "not-the-password"}
    codes = [Client(REMOTE_ADDR=f"2001:db8:5:6::{n:x}").post(url, wrong).status_code for n in range(1, 11)]
    assert set(codes) == {200}
    assert_slowed_down(Client(REMOTE_ADDR="2001:db8:5:6::ffff").post(url, wrong), period=900, message=LOGIN_SLOW_DOWN)
    assert Client(REMOTE_ADDR="2001:db8:5:7::1").post(url, wrong).status_code == 200  # another network


def test_the_admin_log_in_is_limited_per_address_and_logs_failures(clock_held, client, db, settings, caplog):
    from django.contrib.auth.models import User

    User.objects.create_superuser("root", "root@example.com", "a-long-Passphrase-42")
    settings.RATE_LIMITS = {**settings.RATE_LIMITS, "login": "5/m"}
    caplog.set_level("WARNING", logger="accounts.throttle")
    codes = [client.post("/admin/login/", {"username": f"admin{n}", "password": "guess"}).status_code for n in range(5)]
    assert set(codes) == {200}
    assert len([r for r in caplog.records if r.getMessage().startswith("log-in failed: user name 'admin")]) == 5
    assert "/admin/login/" in caplog.records[0].getMessage() and "127.0.0.1" in caplog.records[0].getMessage()
    blocked = client.post("/admin/login/", {"username": "root", "password": "a-long-Passphrase-42"})
    assert_slowed_down(blocked, message=LOGIN_SLOW_DOWN)
    assert "_auth_user_id" not in client.session
    assert "log-in refused, too many attempts: user name 'root'" in caplog.text
    assert "a-long-Passphrase-42" not in caplog.text and "guess" not in caplog.text  # never a password


@pytest.fixture
def numeric_quiz(db):
    quiz = Quiz.objects.create(slug="limits", title={"en": "Limits"})
    for position in range(3):
        Question.objects.create(
            quiz=quiz, key=f"q{position}", type="numeric", position=position, answer=8, prompt={"en": "?"}
        )
    return quiz


def test_quiz_answers_are_limited(clock_held, client, numeric_quiz, settings):
    settings.RATE_LIMITS = {**settings.RATE_LIMITS, "quiz_answer": "2/m"}
    client.post(reverse("quizzes:start", args=["limits"]))
    attempt = Attempt.objects.get()

    def answer(number: int):
        return client.post(reverse("quizzes:answer", args=["limits", attempt.key, number]), {"value": "8"})

    assert [answer(1).status_code, answer(2).status_code] == [302, 302]
    assert_slowed_down(answer(3))
    assert Answer.objects.filter(attempt=attempt).count() == 2


def test_lab_submissions_are_limited_in_the_api(clock_held, client, learner, settings):
    settings.RATE_LIMITS = {**settings.RATE_LIMITS, "lab_submit": "1/m"}
    headers = {"Authorization": f"Bearer {ApiToken.issue(user=learner, name='limits')[1]}"}

    def submit(seed: int):
        body = json.dumps({**TINY_RUN, "seed": seed})
        return client.post("/api/labs/runs", body, content_type="application/json", headers=headers)

    assert submit(1).status_code == 201
    assert_slowed_down(submit(2), api=True)
    assert LabRun.objects.count() == 1


def test_lab_submissions_are_limited_on_the_page(clock_held, learner_client, settings):
    settings.RATE_LIMITS = {**settings.RATE_LIMITS, "lab_submit": "1/m"}
    form = {**TINY_RUN, "grad_clip": ""}
    assert learner_client.post(reverse("labs:submit"), form).status_code == 302
    assert_slowed_down(learner_client.post(reverse("labs:submit"), {**form, "seed": 2}))
    assert LabRun.objects.count() == 1


def test_certificate_lookups_are_limited_on_the_page_and_the_api_together(clock_held, client, db, settings):
    settings.RATE_LIMITS = {**settings.RATE_LIMITS, "certificate_lookup": "3/m"}
    unknown = "AAAA-BBBB-CCCC-DDDD-EEEE-FFFF-GGGG-HHHH"
    page = reverse("certificates:verify", args=[unknown])
    api = reverse("api:certificate", args=[unknown])
    assert [client.get(page).status_code, client.get(api).status_code, client.get(page).status_code] == [404] * 3
    assert_slowed_down(client.get(page))
    assert_slowed_down(client.get(api), api=True)


def test_behind_the_proxy_each_learner_has_their_own_counter(clock_held, client, db, settings):
    settings.BEHIND_PROXY = True
    settings.RATE_LIMITS = {**settings.RATE_LIMITS, "certificate_lookup": "1/m"}
    api = reverse("api:certificate", args=["AAAA"])
    assert client.get(api, HTTP_X_FORWARDED_FOR="198.51.100.1").status_code == 404
    assert client.get(api, HTTP_X_FORWARDED_FOR="198.51.100.2").status_code == 404
    # A client cannot dodge its limit by inventing addresses: the proxy appends the real one last.
    assert client.get(api, HTTP_X_FORWARDED_FOR="203.0.113.9, 198.51.100.1").status_code == 429


# Open redirects: a path that reads like another host ------------------------------------------

HOSTILE_PATHS = [
    "//evil.example/en/",
    "//evil.example/en/guides/what-is-gradient-accumulation/",
    "//evil.example/fr/quizzes/?q=1",
    "///evil.example/en/",
    "//evil.example",
    "/\\evil.example/en/",
    "/\\\\evil.example/hi/",
    "/%5Cevil.example/en/",
    "/en//evil.example/",
    "/en/\\evil.example/",
]


def leaves_the_site(url: str, page: str) -> bool:
    """Whether a browser following `url` from `page` would land on another host (browsers read a
    backslash in a web URL as a slash, and any run of slashes at the start as two)."""
    from urllib.parse import urljoin, urlsplit

    site = urlsplit(django_settings.SITE_URL).netloc
    as_browsers_read_it = re.sub(r"^/{2,}", "//", url.replace("\\", "/"))
    target = urlsplit(urljoin(f"{django_settings.SITE_URL}{page}", as_browsers_read_it))
    return target.netloc not in ("", site)


@pytest.mark.parametrize("path", HOSTILE_PATHS)
def test_a_path_that_names_another_host_yields_no_link_off_the_site(client, synced_content, path):
    """GET //evil.example/en/ once rendered language links to //evil.example/en/ (Django's
    translate_url reads the path as a URL with a host). The path is given raw, as a client sends it."""
    from urllib.parse import parse_qs, urlsplit

    response = client.get("/", PATH_INFO=path.split("?")[0], QUERY_STRING=path.partition("?")[2])
    assert response.status_code in (200, 302, 404), path
    links = re.findall(r'(?:href|src|action)="([^"]*)"', response.content.decode())
    if response.has_header("Location"):
        links.append(response["Location"])
    assert links
    for link in links:
        assert not leaves_the_site(link, path.split("?")[0]), (path, link)
        for value in parse_qs(urlsplit(link).query).get("next", []):  # where a log-in would send
            assert not leaves_the_site(value, "/"), (path, link)
    switcher = re.findall(r'<a href="([^"]*)" lang="(\w+)" hreflang', response.content.decode())
    assert switcher == [("/en/", "en"), ("/hi/", "hi"), ("/fr/", "fr")]  # each language's home page


def test_the_language_switcher_still_leads_to_the_same_page(client, synced_content):
    html = client.get("/fr/guides/what-is-gradient-accumulation/?from=search").content.decode()
    switcher = dict((lang, href) for href, lang in re.findall(r'<a href="([^"]*)" lang="(\w+)" hreflang', html))
    assert switcher == {
        "en": "/en/guides/what-is-gradient-accumulation/?from=search",
        "hi": "/hi/guides/what-is-gradient-accumulation/?from=search",
        "fr": "/fr/guides/what-is-gradient-accumulation/?from=search",
    }
    missing = client.get("/hi/guides/no-such-guide/").content.decode()  # resolved, then not found
    assert '<a href="/fr/guides/no-such-guide/" lang="fr"' in missing
