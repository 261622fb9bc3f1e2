"""Sessions (config.sessions): Django's database sessions, read in one plain statement.
Marked integration so that they run on PostgreSQL too (bin/test)."""

from datetime import timedelta

import pytest
from django.contrib.sessions.models import Session
from django.utils import timezone

from config.sessions import SessionStore

pytestmark = pytest.mark.integration


def test_a_saved_session_reads_back(db):
    saved = SessionStore()
    saved["quiz_attempts"] = ["abc", "déf"]
    saved.save()

    read = SessionStore(saved.session_key)

    assert read["quiz_attempts"] == ["abc", "déf"] and read.session_key == saved.session_key


def test_an_expired_or_unknown_session_reads_empty_and_gets_a_new_key_when_saved(db):
    expired = SessionStore()
    expired["kept"] = True
    expired.save()
    Session.objects.filter(session_key=expired.session_key).update(expire_date=timezone.now() - timedelta(seconds=1))

    for key in (expired.session_key, "unknownsessionkey123"):
        read = SessionStore(key)
        assert dict(read.items()) == {} and read.session_key is None
        read["new"] = 1
        read.save()
        assert read.session_key not in (None, key)


def test_a_session_is_read_while_redis_is_down(client, django_user_model, settings):
    django_user_model.objects.create_user("ada", "ada@example.com", "a long pass phrase")
    client.login(username="ada", password="a long pass phrase")
    settings.CACHES = {
        "default": {
            "BACKEND": "config.cache.PooledClientRedisCache",
            "LOCATION": "redis://127.0.0.1:1/0",
            "OPTIONS": {"socket_connect_timeout": 1, "socket_timeout": 1},
        }
    }

    session = SessionStore(client.cookies["sessionid"].value)

    assert session["_auth_user_id"] == str(django_user_model.objects.get(username="ada").pk)
