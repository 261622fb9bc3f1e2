"""A pytest plugin (bin/test loads it with `-p tests.parallel_isolation`, so before Django reads
its settings) that gives each pytest-xdist worker process Redis databases of its own.

bin/test runs the suite in two processes. Both share the suite's one Redis server, and every test
clears the cache and some read the broker's queues: worker gwK moves REDIS_URL's database number
up by 2K, so its broker (that database) and its cache (the next one, see config/settings.py) are
its own and one worker's `cache.clear()` or Celery worker never touches the other's. The test
database is already per process (SQLite file per pid, pytest-django's `_gwK` suffix).
"""

import os
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

DATABASES_PER_WORKER = 2  # the broker's and the cache's


def _redis_url_for_worker(url: str, worker: str) -> str:
    if not worker.startswith("gw"):
        return url
    parts, shift = urlsplit(url), DATABASES_PER_WORKER * int(worker[2:])
    if parts.scheme == "unix":  # the database is a query parameter there
        query = dict(parse_qsl(parts.query))
        query["db"] = str(int(query.get("db", "0")) + shift)
        return f"{url.split('?', 1)[0]}?{urlencode(query)}"  # urlunsplit would drop the empty host's //
    return urlunsplit(parts._replace(path=f"/{int(parts.path.strip('/') or 0) + shift}"))


if "REDIS_URL" in os.environ:
    os.environ["REDIS_URL"] = _redis_url_for_worker(os.environ["REDIS_URL"], os.environ.get("PYTEST_XDIST_WORKER", ""))
