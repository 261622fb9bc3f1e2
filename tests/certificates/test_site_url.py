"""Staff are told when SITE_URL, which every certificate, QR code and signed credential keeps for good,
is not where the site answers: at start-up (a system check, the web server's log) and on the admin's
pages when they reach the site at another host or port."""

import importlib.util
import logging
from pathlib import Path
from types import SimpleNamespace

import pytest
from django.core import checks
from django.urls import reverse
from django.utils import translation

from certificates.checks import site_url_answers
from config.site_url import site_url_host_refused

pytestmark = pytest.mark.django_db

WARNING_ID = "site-url-warning"
ROOT = Path(__file__).resolve().parents[2]


def ids(found) -> list[str]:
    return [message.id for message in found]


def test_start_up_warns_when_allowed_hosts_refuse_the_site_url_host(settings):
    settings.SITE_URL, settings.ALLOWED_HOSTS, settings.PORT = "https://course.example.org", ["other.example.org"], 443
    found = site_url_answers(None)
    assert ids(found) == ["certificates.W001"] and isinstance(found[0], checks.Warning)
    assert "course.example.org" in found[0].msg and "ALLOWED_HOSTS" in found[0].msg


@pytest.mark.parametrize(
    ("site_url", "allowed_hosts", "debug"),
    [
        ("https://course.example.org", ["course.example.org"], False),
        ("https://course.example.org", [".example.org"], False),
        ("https://course.example.org", ["*"], False),
        ("http://127.0.0.1:8000", [], True),  # DEBUG with no ALLOWED_HOSTS accepts this machine's names
    ],
)
def test_no_warning_when_the_site_url_host_is_allowed(site_url, allowed_hosts, debug):
    assert site_url_host_refused(site_url, allowed_hosts, debug) == ""


def test_the_system_check_is_registered_and_also_warns_of_another_port(settings):
    settings.SITE_URL, settings.ALLOWED_HOSTS, settings.PORT = "http://127.0.0.1:8000", ["127.0.0.1"], 8001
    found = checks.run_checks()
    assert "certificates.W002" in ids(found) and "certificates.W001" not in ids(found)


def gunicorn_settings():
    """config/gunicorn.conf.py, loaded from its file as gunicorn loads it."""
    spec = importlib.util.spec_from_file_location(
        "gunicorn_conf", settings_file := ROOT / "config" / "gunicorn.conf.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.__file__ == str(settings_file)
    return module


def test_the_web_server_logs_the_warning_at_start(settings, caplog):
    settings.SITE_URL, settings.ALLOWED_HOSTS = "https://course.example.org", ["other.example.org"]
    # on_starting reads only the addresses to bind and logs through the server's logger.
    server = SimpleNamespace(cfg=SimpleNamespace(bind=["0.0.0.0:8000"]), log=logging.getLogger("gunicorn.error"))
    with caplog.at_level(logging.WARNING, logger="gunicorn.error"):
        gunicorn_settings().on_starting(server)
    assert "ALLOWED_HOSTS" in caplog.text and "course.example.org" in caplog.text


def test_a_bind_port_of_other_digits_than_ascii_is_not_compared(settings, caplog):
    """str.isdigit() takes "80²", which int() refuses: start-up must not stop on it (gunicorn says
    what is wrong with the address when it binds)."""
    settings.SITE_URL, settings.PORT = "http://127.0.0.1:8000", 8000
    bind = ["0.0.0.0:80²", "0.0.0.0:9000"]
    server = SimpleNamespace(cfg=SimpleNamespace(bind=bind), log=logging.getLogger("gunicorn.error"))
    with caplog.at_level(logging.WARNING, logger="gunicorn.error"):
        gunicorn_settings().on_starting(server)
    assert "9000" in caplog.text and "80²" not in caplog.text  # the other address is still compared


def admin_page(client, host: str, language: str = "en"):
    response = client.get(reverse("admin:index"), HTTP_HOST=host, HTTP_ACCEPT_LANGUAGE=language)
    assert response.status_code == 200
    return response.text


def test_staff_who_reach_the_site_elsewhere_are_warned_on_the_admin(admin_client, settings):
    settings.SITE_URL, settings.ALLOWED_HOSTS = "https://course.example.org", ["course.example.org", "10.0.0.5"]
    text = admin_page(admin_client, "10.0.0.5:8000")
    warning = text.split(f'id="{WARNING_ID}">', 1)[1].split("</li>", 1)[0]
    assert "http://10.0.0.5:8000" in warning and "https://course.example.org" in warning


@pytest.mark.parametrize("host", ["course.example.org", "COURSE.example.org", "course.example.org:443"])
def test_no_warning_when_staff_reach_the_site_at_its_site_url(admin_client, settings, host):
    settings.SITE_URL, settings.ALLOWED_HOSTS = "https://course.example.org", ["course.example.org"]
    assert WARNING_ID not in admin_page(admin_client, host)


def test_a_different_port_on_the_same_host_is_warned_of(admin_client, settings):
    settings.SITE_URL, settings.ALLOWED_HOSTS = "http://127.0.0.1:8000", ["127.0.0.1"]
    assert WARNING_ID in admin_page(admin_client, "127.0.0.1:8001")
    assert WARNING_ID not in admin_page(admin_client, "127.0.0.1:8000")


def test_the_admin_log_in_page_shows_no_warning_to_visitors(client, settings):
    settings.SITE_URL, settings.ALLOWED_HOSTS = "https://course.example.org", ["course.example.org", "10.0.0.5"]
    response = client.get(reverse("admin:login"), HTTP_HOST="10.0.0.5")
    assert response.status_code == 200 and WARNING_ID not in response.text


@pytest.mark.parametrize(
    ("language", "words"),
    [("hi", "प्रमाणपत्रों के लिंक और QR कोड"), ("fr", "Les certificats délivrés maintenant portent des liens")],
)
def test_the_admin_warning_is_translated(admin_client, settings, language, words):
    settings.SITE_URL, settings.ALLOWED_HOSTS = "https://course.example.org", ["course.example.org", "10.0.0.5"]
    with translation.override(language):
        text = admin_page(admin_client, "10.0.0.5", language)
    assert words in text
