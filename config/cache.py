"""Django's Redis cache backend, with one redis-py client per connection pool."""

import re
from collections.abc import Callable

from django.core.cache.backends.redis import RedisCache, RedisCacheClient

INCR_EXISTING = "if redis.call('exists', KEYS[1]) == 1 then return redis.call('incrby', KEYS[1], ARGV[1]) end"
# Counts one more in a window that starts with the first count: INCR, and EXPIRE on a new key.
COUNT_IN_WINDOW = (
    "local n = redis.call('incr', KEYS[1]) if n == 1 then redis.call('expire', KEYS[1], ARGV[1]) end return n"
)


class PooledClientRedisCacheClient(RedisCacheClient):
    """Django builds a new `redis.Redis` for every cache operation, and redis-py 8 fills about 170
    response callbacks in each constructor: about 0.1 ms of CPU, more than the round trip to Redis.
    A client is only a handle on its thread-safe, fork-aware pool, so one per pool serves every call."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._clients = {}

    def get_client(self, key=None, *, write=False):
        pool = self._get_connection_pool(write)
        client = self._clients.get(id(pool))
        if client is None:
            client = self._clients[id(pool)] = self._client(connection_pool=pool)
        return client

    def incr(self, key, delta):
        """Django asks Redis whether the key exists, then increments it: two round trips on every
        rate-limited request (django-ratelimit calls incr once its add found the counter). One
        script does both, and still refuses a missing key with ValueError, as Django's does."""
        value = self.get_client(key, write=True).eval(INCR_EXISTING, 1, key, delta)
        if value is None:
            raise ValueError(f"Key '{key}' not found.")
        return value

    def count(self, key, timeout: int) -> int:
        return self.get_client(key, write=True).eval(COUNT_IN_WINDOW, 1, key, timeout)

    def count_sent(self, key, timeout: int) -> Callable[[], int]:
        """`count`, sent now; the function returned reads the new count (call it exactly once).
        Meanwhile the caller works while Redis answers, instead of waiting for it."""
        pool = self._get_connection_pool(True)
        connection = pool.get_connection()
        try:
            connection.send_command("EVAL", COUNT_IN_WINDOW, 1, key, timeout)
        except BaseException:
            connection.disconnect()
            pool.release(connection)
            raise

        def reply() -> int:
            try:
                return connection.read_response()
            except BaseException:
                connection.disconnect()  # a reply half read must not reach the next caller
                raise
            finally:
                pool.release(connection)

        return reply


class PooledClientRedisCache(RedisCache):
    def __init__(self, server, params) -> None:
        super().__init__(server, params)
        self._class = PooledClientRedisCacheClient

    def count(self, key: str, timeout: int) -> int:
        """One more in the counter `key`, created with `timeout` seconds to live; the new count.
        One round trip, where add-then-incr (django-ratelimit's way) takes two. The value stays a
        plain integer, which `get` reads back as Django's Redis serializer stores integers."""
        return self._cache.count(self.make_key(key), timeout)

    def keys_starting_with(self, prefix: str) -> list[str]:
        """The keys (as given to `set`) that start with `prefix`, which Django's cache API cannot list.
        SCAN, never KEYS, which would hold Redis for every other client while it walks them all."""
        full_prefix = self.make_key(prefix)
        pattern = re.sub(r"([*?\[\]\\])", r"\\\1", full_prefix) + "*"  # the prefix's own glob characters, escaped
        found = self._cache.get_client(full_prefix).scan_iter(match=pattern, count=100)
        return [prefix + key.decode()[len(full_prefix) :] for key in found]

    def count_sent(self, key: str, timeout: int) -> Callable[[], int]:
        """`count` in two halves: sent now, read by calling what it returns (see the client's).
        Keys are not checked for memcached (a Python loop over each character, on every counted
        request): these methods exist only on this Redis backend, which takes any key."""
        return self._cache.count_sent(self.make_key(key), timeout)
