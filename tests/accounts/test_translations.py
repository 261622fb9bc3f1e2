"""The account pages in Hindi and French: no English left, Django's own strings included (its Hindi
catalog lacks many, accounts/django_strings.py), and user names in any script."""

from html.parser import HTMLParser

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.utils import translation

from accounts.django_strings import ALL as DJANGO_STRINGS
from tests.english_left import KEPT, english_left

pytestmark = pytest.mark.django_db
PASSWORD = "a-long-Passphrase-42"
LANGUAGES = ("hi", "fr")


class _PageText(HTMLParser):
    """The text a reader sees or hears: text nodes and the placeholder, label and title attributes."""

    ATTRIBUTES = {"placeholder", "aria-label", "title", "alt"}

    def __init__(self) -> None:
        super().__init__()
        self.texts: list[str] = []
        self.in_code = 0

    def handle_starttag(self, tag, attrs):
        self.in_code += tag in ("script", "style")
        self.texts += [" ".join(value.split()) for name, value in attrs if name in self.ATTRIBUTES and value]

    def handle_endtag(self, tag):
        self.in_code -= tag in ("script", "style")

    def handle_data(self, data):
        if not self.in_code and data.strip():
            self.texts.append(" ".join(data.split()))


def page_text(response) -> list[str]:
    parser = _PageText()
    parser.feed(response.content.decode())
    return parser.texts


def test_djangos_strings_on_the_account_pages_are_translated():
    for language in LANGUAGES:
        for string in DJANGO_STRINGS:
            with translation.override("en"):
                english = str(string)
            with translation.override(language):
                assert str(string) != english, f"{language}: {english!r}"


def _signup(client, language, **fields):
    data = {"username": "ravi", "email": "ravi@example.com", "full_name": "Ravi Kumar", "password1": PASSWORD}
    return client.post(f"/{language}/accounts/signup/", {**data, "password2": PASSWORD, **fields})


def _logged_in(client):
    client.force_login(User.objects.get(username="asha"))
    return client


PAGES = {
    "sign-up": lambda client, lang: client.get(f"/{lang}/accounts/signup/"),
    "sign-up refused, every field": lambda client, lang: _signup(
        client, lang, username="bad name!", email="not-an-address", password1="1234", password2="12345", full_name=""
    ),
    "sign-up refused, password rules": lambda client, lang: _signup(client, lang, password1="ravi1", password2="ravi1"),
    "sign-up refused, common password": lambda client, lang: _signup(
        client, lang, password1="password", password2="password"
    ),
    "sign-up refused, name taken": lambda client, lang: _signup(client, lang, username="ASHA"),
    "log-in": lambda client, lang: client.get(f"/{lang}/accounts/login/"),
    "log-in refused": lambda client, lang: client.post(
        f"/{lang}/accounts/login/", {"username": "asha", "password": "wrong"}
    ),
    "password reset": lambda client, lang: client.get(f"/{lang}/accounts/password/reset/"),
    "password reset refused": lambda client, lang: client.post(f"/{lang}/accounts/password/reset/", {"email": ""}),
    "password reset link invalid": lambda client, lang: client.get(f"/{lang}/accounts/password/reset/MQ/bad-token/"),
    "password change refused": lambda client, lang: _logged_in(client).post(
        f"/{lang}/accounts/password/change/",
        {"old_password": "wrong", "new_password1": "short", "new_password2": "other"},
    ),
}


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("page", list(PAGES))
def test_the_account_pages_leave_no_english(learner, settings, page, language):
    settings.RATELIMIT_ENABLE = False  # the same refused requests, in three languages
    ask = PAGES[page]
    assert english_left(page_text(ask(Client(), "en")), page_text(ask(Client(), language)), language) == []


def test_the_comparison_finds_an_english_string(learner):
    """Were the kept words not kept, they would be found: the comparison sees the page's header."""
    english = page_text(PAGES["sign-up"](Client(), "en"))
    hindi = page_text(PAGES["sign-up"](Client(), "hi"))
    assert english_left(english, hindi, "hi") == []
    assert english_left(english, [*hindi, "Create your account"], "hi") == ["Create your account"]
    assert set(KEPT["hi"]) <= set(hindi)  # the kept words are on the page, not missed by the reader


@pytest.mark.parametrize("username", ["आशा", "प्रिया_1", "अंकित.वर्मा", "José", "محمد", "kṛṣṇa", "ravi@home"])
def test_user_names_in_any_script_are_accepted_on_the_english_page(client, username):
    response = _signup(client, "en", username=username)
    assert response.status_code == 302, page_text(response)
    user = User.objects.get(username=username)
    assert Client().login(username=username, password=PASSWORD) and user.profile.full_name == "Ravi Kumar"


@pytest.mark.parametrize("username", ["ा", "आ\u200dशा", "ravi kumar", "<b>ravi</b>", "ravi\u202e", "a" * 151])
def test_user_names_with_spaces_symbols_or_invisible_characters_are_refused(client, username):
    response = _signup(client, "en", username=username)
    assert response.status_code == 400 and not User.objects.exists()


def test_a_name_taken_in_another_case_or_the_same_devanagari_is_refused(client, learner):
    assert _signup(client, "en", username="आशा").status_code == 302
    for taken in ("आशा", "ASHA"):
        response = _signup(Client(), "hi", username=taken, email="other@example.com")
        assert response.status_code == 400
        assert "इस उपयोगकर्ता नाम का खाता पहले से मौजूद है।" in response.content.decode()


def test_a_password_like_the_user_name_is_refused_in_hindi(client):
    response = _signup(
        client, "hi", username="priyanka_sharma", password1="priyanka_sharma1", password2="priyanka_sharma1"
    )
    assert response.status_code == 400
    assert "यह पासवर्ड इस जानकारी से बहुत मिलता-जुलता है: उपयोगकर्ता नाम।" in response.content.decode()


@pytest.mark.parametrize(
    ("page", "hindi"),
    [
        ("log-in refused", "कृपया सही उपयोगकर्ता नाम और पासवर्ड लिखें।"),
        ("password change refused", "आपका पुराना पासवर्ड ग\u093cलत लिखा गया। कृपया उसे फिर से लिखें।"),
        ("password reset link invalid", "पासवर्ड रीसेट नहीं हो सका"),
        ("sign-up refused, password rules", "यह पासवर्ड बहुत छोटा है। इसमें कम से कम 8 वर्ण होने चाहिए।"),
        ("sign-up refused, common password", "यह पासवर्ड बहुत आम है।"),
        ("sign-up refused, every field", "यह जानकारी ज़रूरी है।"),
    ],
)
def test_djangos_messages_show_in_hindi(learner, settings, page, hindi):
    settings.RATELIMIT_ENABLE = False
    assert hindi in " ".join(page_text(PAGES[page](Client(), "hi")))
