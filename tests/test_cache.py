"""The cache backend (config/cache.py) keeps Django's contract with fewer round trips to Redis."""

import pytest
from django.core.cache import cache

pytestmark = pytest.mark.integration  # the backend's own commands, sent to the real Redis


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


def test_count_starts_a_counter_with_its_lifetime_and_adds_to_it_in_one_round_trip(monkeypatch):
    client = cache._cache.get_client("window", write=True)
    commands = []
    original = client.execute_command
    monkeypatch.setattr(
        client, "execute_command", lambda *args, **kw: commands.append(args[0]) or original(*args, **kw)
    )
    assert [cache.count("window", 60) for _ in range(3)] == [1, 2, 3]
    assert commands == ["EVAL"] * 3
    assert cache.get("window") == 3  # a plain integer, as Django's incr leaves it
    assert 0 < client.ttl(cache.make_and_validate_key("window")) <= 60  # the first count set it, later ones kept it
