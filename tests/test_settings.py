"""Settings come from the environment and fail loudly on bad values; production passes check --deploy."""

import subprocess
import sys
from pathlib import Path

import pytest
from django.core.exceptions import ImproperlyConfigured

from config.env import env_bool, env_int, env_list

ROOT = Path(__file__).resolve().parent.parent
PRODUCTION_ENV = {
    "SECRET_KEY": "k" * 20 + "-production-secret-from-the-environment-0123456789",
    "HTTPS": "true",
    "ALLOWED_HOSTS": "course.example.org",
    "SITE_URL": "https://course.example.org",
    "DEBUG": "false",
}


def test_booleans_accept_the_usual_spellings(monkeypatch):
    monkeypatch.setenv("FLAG", "Yes")
    assert env_bool("FLAG") is True
    monkeypatch.setenv("FLAG", "0")
    assert env_bool("FLAG", True) is False


def test_a_bad_boolean_or_integer_fails_loudly(monkeypatch):
    monkeypatch.setenv("FLAG", "maybe")
    with pytest.raises(ImproperlyConfigured, match="FLAG"):
        env_bool("FLAG")
    monkeypatch.setenv("COUNT", "ten")
    with pytest.raises(ImproperlyConfigured, match="COUNT"):
        env_int("COUNT", 1)


def test_lists_are_comma_separated(monkeypatch):
    monkeypatch.setenv("HOSTS", "a.example, b.example,,")
    assert env_list("HOSTS", []) == ["a.example", "b.example"]


def _manage(*args: str, **env: str) -> subprocess.CompletedProcess:
    import os

    full_env = {**os.environ, "PYTHONPATH": str(ROOT), **env}
    full_env.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)  # set for the browser tests only
    return subprocess.run([sys.executable, "manage.py", *args], cwd=ROOT, env=full_env, capture_output=True, text=True)


def test_production_settings_pass_the_deployment_checklist(tmp_path):
    result = _manage("check", "--deploy", "--fail-level", "WARNING", STATE_DIR=str(tmp_path), **PRODUCTION_ENV)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout


@pytest.mark.parametrize(
    ("name", "value", "message"),
    [
        ("DEBUG", "perhaps", "DEBUG must be one of"),
        ("DATABASE_URL", "nonsense://x", "DATABASE_URL"),
        ("REDIS_URL", "http://localhost", "REDIS_URL must start with"),
        ("SECRET_KEY", "short", "SECRET_KEY must be at least 50"),
    ],
)
def test_bad_settings_stop_the_site_with_a_clear_message(tmp_path, name, value, message):
    result = _manage("check", STATE_DIR=str(tmp_path), **{name: value})
    assert result.returncode != 0
    assert message in result.stderr


@pytest.mark.parametrize("site_url", [None, "http://127.0.0.1:8000", "https://localhost", "http://[::1]:8000"])
def test_a_public_site_without_its_public_address_does_not_start(tmp_path, site_url):
    env = {**PRODUCTION_ENV, "STATE_DIR": str(tmp_path)}
    env.pop("SITE_URL")
    if site_url:
        env["SITE_URL"] = site_url
    result = _manage("check", "--deploy", **env)
    assert result.returncode != 0
    assert "SITE_URL must be set to this site's public address, e.g. https://course.example.org" in result.stderr


@pytest.mark.parametrize(
    "site_url", ["course.example.org", "ftp://course.example.org", "https://course.example.org/en/"]
)
def test_a_site_url_that_is_not_an_address_stops_the_site(tmp_path, site_url):
    result = _manage("check", STATE_DIR=str(tmp_path), SITE_URL=site_url)
    assert result.returncode != 0
    assert "SITE_URL must be an address such as https://course.example.org" in result.stderr


def test_the_embedded_defaults_still_start_on_one_machine(tmp_path):
    """`make run` sets no variable: the site answers only on this machine, where 127.0.0.1 is right."""
    script = "from django.conf import settings; print(settings.DEBUG, settings.SITE_URL)"
    result = _manage("shell", "-c", script, STATE_DIR=str(tmp_path), SITE_URL="", DEBUG="", ALLOWED_HOSTS="")
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip().splitlines()[-1] == "False http://127.0.0.1:8000"


@pytest.mark.parametrize(
    ("broker", "cache"),
    [
        ("redis://127.0.0.1:6380/0", "redis://127.0.0.1:6380/1"),
        ("redis://:secret@redis.internal:6379/4", "redis://:secret@redis.internal:6379/5"),
        ("unix:///run/redis/redis.sock?db=0", "unix:///run/redis/redis.sock?db=1"),
        ("unix:///run/redis/redis.sock", "unix:///run/redis/redis.sock?db=1"),
    ],
)
def test_the_cache_takes_the_next_redis_database_after_the_brokers(broker, cache):
    from redis.connection import parse_url

    from config.settings import _cache_url

    assert _cache_url(broker) == cache
    assert parse_url(cache)["db"] == parse_url(broker).get("db", 0) + 1  # redis-py reads it back
