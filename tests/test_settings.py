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
        ("LOGIN_USERNAME_RATE", "10/15m", "set LOGIN_USERNAME_ADDRESS_RATE"),  # renamed: never silently ignored
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
    env = {"STATE_DIR": str(tmp_path), "SITE_URL": "", "DEBUG": "", "ALLOWED_HOSTS": "", "PORT": ""}
    result = _manage("shell", "-c", script, **env)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip().splitlines()[-1] == "False http://127.0.0.1:8000"


def test_the_default_site_url_follows_the_port_the_run_command_serves_on(tmp_path):
    """`PORT=9123 make run`: credentials and QR codes must name 9123, or the site's own verifier
    cannot fetch the status list they point to."""
    script = "from django.conf import settings; print(settings.SITE_URL)"
    result = _manage("shell", "-c", script, STATE_DIR=str(tmp_path), SITE_URL="", PORT="9123")
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip().splitlines()[-1] == "http://127.0.0.1:9123"
    assert "PORT must be a TCP port" in _manage("check", STATE_DIR=str(tmp_path), PORT="70000").stderr
    assert (ROOT / "bin/run").read_text().count('export PORT="${PORT:-8000}"') == 1  # every program sees it


@pytest.mark.parametrize(
    ("site_url", "port", "warns"),
    [
        ("http://127.0.0.1:8000", 9000, True),
        ("http://localhost:8000", 9000, True),
        ("http://127.0.0.1", 8000, True),  # no port named: 80
        ("http://127.0.0.1:9000", 9000, False),
        ("https://course.example.org", 8000, False),  # behind a proxy: its own port
    ],
)
def test_a_site_url_that_names_another_local_port_is_warned_about(site_url, port, warns):
    from config.env import site_url_port_warning

    warning = site_url_port_warning(site_url, port)
    assert bool(warning) is warns
    if warns:
        assert f"SITE_URL is {site_url} but the site serves on port {port}" in warning


def test_gunicorn_warns_at_start_up_when_site_url_and_its_port_disagree(settings):
    """The run command's web server (config/gunicorn.conf.py), started on 9000 with SITE_URL on 8000."""
    import importlib.util
    from types import SimpleNamespace

    spec = importlib.util.spec_from_file_location("gunicorn_conf", ROOT / "config/gunicorn.conf.py")
    conf = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(conf)
    said = []
    server = SimpleNamespace(cfg=SimpleNamespace(bind=["127.0.0.1:9000"]), log=SimpleNamespace(warning=said.append))
    settings.SITE_URL = "http://127.0.0.1:8000"
    conf.on_starting(server)
    assert len(said) == 1 and "serves on port 9000" in said[0]
    settings.SITE_URL = "http://127.0.0.1:9000"
    conf.on_starting(server)
    assert len(said) == 1


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


@pytest.mark.parametrize(
    ("name", "value", "message"),
    [
        ("DISCUSSION_URL_PATTERN", "http://forum.example.org/t/{slug}", "DISCUSSION_URL_PATTERN must be an https"),
        ("DISCUSSION_URL_PATTERN", "https://forum.example.org/c/course", "with {slug} in it"),
        ("DISCUSSION_URL_PATTERN", "https://forum.example.org/t/{topic}", "only the placeholders {slug} and"),
        ("NOTEBOOK_REPOSITORY_URL", "https://gitlab.com/org/repo", "NOTEBOOK_REPOSITORY_URL must be a public GitHub"),
        ("NOTEBOOK_REPOSITORY_BRANCH", "main branch", "NOTEBOOK_REPOSITORY_BRANCH must be a branch name"),
        ("NOTEBOOK_REPOSITORY_PATH", "../notebooks", "NOTEBOOK_REPOSITORY_PATH must be a folder"),
    ],
)
def test_bad_outside_links_stop_the_site_with_a_clear_message(tmp_path, name, value, message):
    env = {"NOTEBOOK_REPOSITORY_URL": "https://github.com/org/repo", name: value}
    result = _manage("check", STATE_DIR=str(tmp_path), **env)
    assert result.returncode != 0
    assert message in result.stderr
