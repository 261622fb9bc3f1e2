"""The cache backend (config/cache.py) keeps Django's contract with fewer round trips to Redis."""

import pytest
from django.core.cache import cache


def test_incr_adds_to_an_existing_counter_and_refuses_a_missing_one():
    cache.set("counter", 5, 60)
    assert cache.incr("counter") == 6 and cache.incr("counter", 10) == 16
    assert cache.get("counter") == 16
    with pytest.raises(ValueError):
        cache.incr("no-such-counter")
    assert cache.get("no-such-counter") is None  # refusing it did not create it


def test_incr_is_one_round_trip(monkeypatch):
    cache.set("counter", 1, 60)
    client = cache._cache.get_client("counter", write=True)
    commands = []
    original = client.execute_command
    monkeypatch.setattr(
        client, "execute_command", lambda *args, **kw: commands.append(args[0]) or original(*args, **kw)
    )
    assert cache.incr("counter") == 2
    assert commands == ["EVAL"]
