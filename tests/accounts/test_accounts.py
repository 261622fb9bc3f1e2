"""Accounts: sign-up with the certificate name, log in/out, password reset, dashboard, API tokens."""

import re

import pytest
from django.contrib.auth.models import User
from django.core import mail
from django.test import Client
from django.utils import translation
from django.utils.translation import gettext

from accounts.auth import api_user
from accounts.models import ApiToken

pytestmark = pytest.mark.django_db
PASSWORD = "a-long-Passphrase-42"


def _signup(client, language="hi", **overrides):
    data = {
        "username": "ravi",
        "email": "ravi@example.com",
        "full_name": "रवि कुमार",
        "password1": PASSWORD,
        "password2": PASSWORD,
        **overrides,
    }
    return client.post(f"/{language}/accounts/signup/", data)


def test_signing_up_creates_the_account_with_its_certificate_name_and_logs_in(client):
    response = _signup(client)
    assert response.status_code == 302 and response["Location"].endswith("/accounts/dashboard/")
    user = User.objects.get(username="ravi")
    assert user.profile.full_name == "रवि कुमार" and user.profile.language == "hi"
    assert "रवि कुमार" in client.get("/hi/accounts/dashboard/").content.decode()


@pytest.mark.parametrize(
    "next_url, lands_on",
    [
        ("/en/quizzes/", "/en/quizzes/"),
        ("https://elsewhere.example/phish", "/hi/accounts/dashboard/"),
        ("//elsewhere.example/phish", "/hi/accounts/dashboard/"),
        ("javascript:alert(1)", "/hi/accounts/dashboard/"),
    ],
)
def test_sign_up_follows_only_a_next_url_on_this_site(client, next_url, lands_on):
    data = {"username": "ravi", "email": "ravi@example.com", "full_name": "Ravi", "password1": PASSWORD}
    response = client.post(f"/hi/accounts/signup/?next={next_url}", {**data, "password2": PASSWORD})
    assert response.status_code == 302 and response["Location"] == lands_on


def test_sign_up_errors_are_explained_and_nothing_is_created(client):
    response = _signup(client, password2="different-Passphrase-1", full_name="")
    assert response.status_code == 400
    assert User.objects.count() == 0


def test_sign_up_does_not_tell_whether_an_address_is_registered(client, learner, django_capture_on_commit_callbacks):
    """A taken address gets the same answer as a free one; its holder is told instead (Django's
    password-reset habit), and the address stays theirs alone."""
    learner.profile.language = "fr"
    learner.profile.save()
    with django_capture_on_commit_callbacks(execute=True):  # the e-mails leave once the account is stored
        free = _signup(Client(), language="en", username="ravi", email="ravi@example.com")
        taken = _signup(client, language="en", username="mallory", email="ASHA@example.com")
    assert (taken.status_code, taken["Location"]) == (free.status_code, free["Location"])
    assert taken["Location"] == "/en/accounts/dashboard/"
    page = client.get(taken["Location"]).content.decode()
    assert "We sent a message to the address you gave: check your email." in page
    assert "already" not in page
    mallory, ravi = User.objects.get(username="mallory"), User.objects.get(username="ravi")
    assert mallory.email == "" and ravi.email == "ravi@example.com"
    assert User.objects.filter(email__iexact="asha@example.com").get() == learner
    welcome, notice = mail.outbox
    assert welcome.to == ["ravi@example.com"] and "ravi" in welcome.body
    assert notice.to == ["asha@example.com"]  # in the holder's language, with the way back in
    english = "Someone signed up with your address on the Gradient Accumulation Course"
    with translation.override("fr"):
        assert notice.subject == gettext(english) != english  # the catalog's French, read through gettext
    assert "asha" in notice.body and "mallory" not in notice.body
    assert "/fr/accounts/login/" in notice.body and "/fr/accounts/password/reset/" in notice.body


def test_a_taken_user_name_is_still_said(client, learner):
    response = _signup(client, language="en", username="asha", email="someone-new@example.com")
    assert response.status_code == 400
    assert "A user with that username already exists." in response.content.decode()
    assert not mail.outbox


def test_log_in_and_log_out(client, learner):
    response = client.post("/en/accounts/login/", {"username": "asha", "password": PASSWORD})
    assert response.status_code == 302
    assert client.get("/en/accounts/dashboard/").status_code == 200
    client.post("/en/accounts/logout/")
    assert client.get("/en/accounts/dashboard/").status_code == 302


def test_the_dashboard_needs_a_login(client):
    response = client.get("/fr/accounts/dashboard/")
    assert response.status_code == 302 and "/fr/accounts/login/" in response["Location"]


def test_password_reset_by_email(client, learner):
    client.post("/en/accounts/password/reset/", {"email": "asha@example.com"})
    assert len(mail.outbox) == 1
    link = re.search(r"https?://[^/]+(/en/accounts/password/reset/[^\s]+/)", mail.outbox[0].body).group(1)
    form_page = client.get(link, follow=True)
    assert form_page.status_code == 200
    new_password = "another-Passphrase-77"
    response = client.post(
        form_page.redirect_chain[-1][0], {"new_password1": new_password, "new_password2": new_password}
    )
    assert response.status_code == 302
    assert Client().login(username="asha", password=new_password)


SITE = "https://course.example.org"
FORGED_HOST = "attacker.example"


@pytest.fixture
def forged_host(settings):
    """A Host the site accepts (a proxy that passes any Host on, or a wildcard ALLOWED_HOSTS) but that
    is not SITE_URL's: a link built from it would hand the learner's reset token to its owner."""
    settings.SITE_URL = SITE
    settings.ALLOWED_HOSTS = ["course.example.org", FORGED_HOST]
    return Client(HTTP_HOST=FORGED_HOST)


def links_in(message) -> list[str]:
    return re.findall(r"https?://\S+", message.body)


def test_the_password_reset_link_names_site_url_whatever_host_the_request_named(forged_host, learner):
    response = forged_host.post("/en/accounts/password/reset/", {"email": "asha@example.com"})
    assert response.status_code == 302
    (message,) = mail.outbox
    (link,) = links_in(message)
    assert link.startswith(f"{SITE}/en/accounts/password/reset/"), link
    assert FORGED_HOST not in message.body


def test_every_other_email_links_to_site_url_whatever_host_the_request_named(
    forged_host, learner, django_capture_on_commit_callbacks
):
    """The sign-up's welcome, the notice to an address's holder and the newsletter's confirmation."""
    with django_capture_on_commit_callbacks(execute=True):
        _signup(forged_host, language="en", username="ravi", email="ravi@example.com")
        _signup(Client(HTTP_HOST=FORGED_HOST), language="en", username="mallory", email="asha@example.com")
    forged_host.post("/en/newsletter/", {"email": "reader@example.com"}, HTTP_ORIGIN=f"http://{FORGED_HOST}")
    assert len(mail.outbox) == 3
    links = [link for message in mail.outbox for link in links_in(message)]
    assert links and all(link.startswith(f"{SITE}/") for link in links), links
    assert all(FORGED_HOST not in message.body for message in mail.outbox)


def test_changing_the_certificate_name(learner_client, learner):
    response = learner_client.post("/en/accounts/profile/", {"full_name": "Asha V. Verma"})
    assert response.status_code == 302
    learner.profile.refresh_from_db()
    assert learner.profile.full_name == "Asha V. Verma"


def test_api_tokens_are_shown_once_and_stored_only_as_a_digest(learner_client, learner, rf):
    response = learner_client.post("/en/accounts/tokens/", {"name": "laptop"})
    raw = re.search(r"gac_[\w-]+", response.content.decode()).group(0)
    token = ApiToken.objects.get(user=learner)
    assert raw not in (token.digest, token.prefix) and token.digest == ApiToken.digest_of(raw)
    request = rf.get("/api/labs/runs/1", HTTP_AUTHORIZATION=f"Bearer {raw}")
    request.user = None
    assert api_user(request) == learner
    bad = rf.get("/api/labs/runs/1", HTTP_AUTHORIZATION="Bearer gac_wrong")
    bad.user = None
    assert not api_user(bad).is_authenticated


def test_the_page_that_shows_a_new_token_is_never_stored(learner_client):
    """It is the one page that shows the raw token: no browser history or shared cache may keep it."""
    response = learner_client.post("/en/accounts/tokens/", {"name": "laptop"})
    assert re.search(r"gac_[\w-]+", response.content.decode())
    directives = {part.strip() for part in response["Cache-Control"].split(",")}
    assert {"no-store", "private"} <= directives


def test_revoking_a_token(learner_client, learner):
    token, _raw = ApiToken.issue(user=learner, name="old")
    learner_client.post(f"/en/accounts/tokens/{token.pk}/delete/")
    assert not ApiToken.objects.filter(pk=token.pk).exists()


def test_another_learner_cannot_revoke_my_token(client, learner):
    token, _raw = ApiToken.issue(user=learner, name="mine")
    other = User.objects.create_user("other", "o@example.com", PASSWORD)
    client.force_login(other)
    assert client.post(f"/en/accounts/tokens/{token.pk}/delete/").status_code == 404
    assert ApiToken.objects.filter(pk=token.pk).exists()


@pytest.mark.parametrize(
    "name",
    [
        "\u202eamrev ahsa",  # right-to-left override: would print reversed from how it reads
        "Asha \u2066Verma\u2069",  # left-to-right isolate
        "Asha\u200fVerma",  # right-to-left mark
        "Asha\nVerma",
        "Asha\tVerma",
        "Asha\u0000Verma",
        "Asha\u2028Verma",  # line separator
        "Asha\ufeffVerma",  # zero-width no-break space
    ],
)
def test_names_with_control_or_direction_characters_are_refused_with_a_clear_message(client, name):
    response = _signup(client, language="fr", full_name=name)
    assert response.status_code == 400 and User.objects.count() == 0
    assert "caractère invisible ou de contrôle" in response.content.decode()


def test_the_profile_refuses_a_name_with_a_direction_override(learner_client, learner):
    response = learner_client.post("/hi/accounts/profile/", {"full_name": "Asha \u202eamreV"})
    assert response.status_code == 400
    assert "अदृश्य या नियंत्रण वर्ण" in response.content.decode()
    learner.profile.refresh_from_db()
    assert learner.profile.full_name == "Asha Verma"


@pytest.mark.parametrize(
    "name",
    ["क्\u200dष मेहता", "می\u200cخواهم رضایی", "Zoë Ångström", "محمد بن سلمان", "דוד בן־גוריון", "山田 花子", "김민준"],
)
def test_names_in_any_script_with_their_joiners_are_accepted(client, name):
    response = _signup(client, language="en", full_name=name)
    assert response.status_code == 302
    assert User.objects.get().profile.full_name == name
