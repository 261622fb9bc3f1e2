"""The suite's two processes never share a Redis database (tests/parallel_isolation.py)."""

from tests.parallel_isolation import _redis_url_for_worker


def test_each_worker_gets_the_broker_and_cache_databases_of_its_own():
    url = "redis://127.0.0.1:6400/0"
    assert _redis_url_for_worker(url, "gw0") == "redis://127.0.0.1:6400/0"
    assert _redis_url_for_worker(url, "gw1") == "redis://127.0.0.1:6400/2"  # 1 is gw0's cache
    assert _redis_url_for_worker("redis://h:1/4", "gw2") == "redis://h:1/8"


def test_outside_xdist_the_url_is_left_alone_and_a_unix_socket_moves_its_db_parameter():
    assert _redis_url_for_worker("redis://h:1/3", "") == "redis://h:1/3"
    assert _redis_url_for_worker("unix:///run/redis.sock?db=0", "gw1") == "unix:///run/redis.sock?db=2"
