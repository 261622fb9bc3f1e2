"""Shared fixtures: real Redis and real Celery worker processes for the integration tests (marked
`integration`), real objects for all. Other tests need no server: the unit run (bin/unit) gives
them a local-memory cache and an in-memory broker (tests/unit_settings.py)."""

import copy
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import quote, urlencode

import pytest
import redis
from django.conf import settings
from django.db import connection

from tests import factories
from tests.polling import wait_for

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="session")
def redis_server():
    """The real Redis of the integration tests (bin/test starts one and sets REDIS_URL)."""
    try:
        redis.Redis.from_url(settings.REDIS_URL, socket_connect_timeout=2).ping()
    except redis.RedisError as exc:
        pytest.exit(f"Redis at {settings.REDIS_URL} is not reachable ({exc}); run the suite with bin/test", 2)


@pytest.fixture(autouse=True)
def redis_for_integration_tests(request):
    """An integration test stops the session at once when Redis is not there; other tests never ask."""
    if request.node.get_closest_marker("integration"):
        request.getfixturevalue("redis_server")


@pytest.fixture(scope="session", autouse=True)
def guide_text_rendered_once():
    """Every test that loads the content (synced_content) renders the 21 guide pages again, about
    2.5 s of CPU each time, and the same text always renders to the same page: the session keeps
    what the real renderer made for each text, glossary and language, and hands out copies."""
    from course import services

    render_markdown = services.render_markdown
    rendered = {}

    def render_once(source, glosses=None, language=""):
        key = (source, repr(glosses), language)
        if key not in rendered:
            rendered[key] = render_markdown(source, glosses, language)
        return copy.deepcopy(rendered[key])

    services.render_markdown = render_once
    yield
    services.render_markdown = render_markdown


@pytest.fixture(scope="session")
def live_server(request):
    """pytest-django's live server, except that media reaches the site as in production: Django's
    test server would answer /media/ itself, with django.views.static.serve, which knows no byte
    ranges. The static files keep the test server's handler (served from the source folders)."""
    from django.contrib.staticfiles.handlers import StaticFilesHandler
    from pytest_django.live_server_helper import LiveServer

    address = request.config.getvalue("liveserver") or os.getenv("DJANGO_LIVE_TEST_SERVER_ADDRESS") or "localhost"
    server = LiveServer(address, start=False)
    # The thread wraps the site in its media handler, then hands that to this: skip the media one.
    server.thread.static_handler = lambda media_handler: StaticFilesHandler(media_handler.application)
    server.start()
    yield server
    server.stop()


@pytest.fixture(autouse=True)
def clean_cache():
    """The cache is shared state like the database, which each test gets rolled back: rate-limit
    counters (and anything else a test left in Redis) must not leak from one test to the next."""
    from django.core.cache import cache

    cache.clear()
    yield
    cache.clear()


@pytest.fixture
def clock_held():
    """Time stands still for the test (time-machine; time.monotonic still runs, so waits on other
    processes still end). django-ratelimit counts in fixed windows whose ends fall at any second (each
    counter's end is offset by a hash of its key): a test that fills a counter over several requests
    would, now and then, see a window end between two of them and the counter start afresh."""
    import time_machine

    with time_machine.travel(time.time(), tick=False) as traveller:
        yield traveller


@pytest.fixture(autouse=True)
def rate_limit_refusals_only_on_a_held_clock(request, monkeypatch):
    """Fails a test in which a rate limit refused a request while the clock ran (see clock_held): that
    test passes or fails with the second it started at. Watches the one place every limit is counted."""
    import config.ratelimit

    counted = config.ratelimit.get_usage
    refused = []

    def get_usage(*args, **kwargs):
        usage = counted(*args, **kwargs)
        if usage and usage["should_limit"]:
            refused.append(kwargs.get("group"))
        return usage

    monkeypatch.setattr(config.ratelimit, "get_usage", get_usage)
    yield
    if refused and "clock_held" not in request.fixturenames:
        pytest.fail(
            f"rate limits {sorted(set(refused))} refused a request while the clock ran: a window may end "
            "between two requests of this test; ask for the clock_held fixture",
            pytrace=False,
        )


@pytest.fixture(autouse=True)
def fast_password_hashing(settings):
    """Hashing a password properly takes a good part of a second, and most tests sign a learner up;
    no test is about the hasher (a production process in tests/test_security.py keeps the real one)."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture(autouse=True)
def english_after_each_test():
    """A request to /hi/ or /fr/ activates that language in this thread; do not leak it."""
    yield
    from django.utils import translation

    translation.activate(settings.LANGUAGE_CODE)


def database_url_for_subprocess() -> str:
    """The URL of the database the tests are using right now (the test database)."""
    s = connection.settings_dict
    if s["ENGINE"].endswith("sqlite3"):
        return f"sqlite:///{s['NAME']}"
    # Quoted, because a password may hold '@' or ':' and a host may be a socket folder ('/run/...').
    user, password = quote(str(s.get("USER") or ""), safe=""), quote(str(s.get("PASSWORD") or ""), safe="")
    auth = f"{user}:{password}@" if password else (f"{user}@" if user else "")
    host = quote(str(s.get("HOST") or "localhost"), safe="")
    options = {k: v for k, v in (s.get("OPTIONS") or {}).items() if isinstance(v, str | int)}
    query = f"?{urlencode(options)}" if options else ""
    return f"postgres://{auth}{host}:{s.get('PORT') or 5432}/{quote(s['NAME'], safe='')}{query}"


def subprocess_env(**overrides: str) -> dict[str, str]:
    env = dict(os.environ)
    env.update(
        DJANGO_SETTINGS_MODULE="config.settings",
        DATABASE_URL=database_url_for_subprocess(),
        REDIS_URL=settings.REDIS_URL,
        PYTHONUNBUFFERED="1",
    )
    env.update(overrides)
    return env


class WorkerProcess:
    """A real `celery -A config worker -Q gpu` process consuming the test broker."""

    def __init__(self, log_path: Path, env: dict[str, str], name: str = "test-worker") -> None:
        self.log_path, self.env, self.name = log_path, env, name
        self.process: subprocess.Popen | None = None

    def start(self, timeout: float = 120) -> "WorkerProcess":
        """Returns once the worker consumes and its pool child has loaded torch (labs.workers):
        a test that starts two workers then knows both take runs, whatever the machine's speed."""
        command = [
            sys.executable,
            "-m",
            "celery",
            "-A",
            "config",
            "worker",
            "-Q",
            "gpu",
            "--concurrency",
            "1",
            "--pool",
            "prefork",
            "--loglevel",
            "INFO",
            "--hostname",
            f"{self.name}@%h",
            "--without-gossip",
            "--without-mingle",
        ]
        self.log = open(self.log_path, "ab")
        began = self.log.tell()  # a worker started again appends to the same log
        self.process = subprocess.Popen(
            command, cwd=ROOT, env=self.env, stdout=self.log, stderr=subprocess.STDOUT, start_new_session=True
        )

        def ready() -> bool:
            if self.process.poll() is not None:
                raise RuntimeError(f"worker exited early:\n{self.log_path.read_text()[-3000:]}")
            log = self.log_path.read_bytes()[began:]
            return b"ready." in log and b"ready to train" in log

        wait_for(ready, timeout, f"the worker to be ready (its log: {self.log_path})")
        return self

    def kill_hard(self) -> None:
        """SIGKILL the whole worker (parent and pool children), like a machine dying."""
        if self.process and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait(timeout=10)

    def stop(self) -> None:
        if self.process and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.kill_hard()
        self.log.close()


@pytest.fixture
def celery_worker(transactional_db, tmp_path):
    """A running worker. Tests using it need committed data, hence transactional_db."""
    worker = WorkerProcess(tmp_path / "worker.log", subprocess_env()).start()
    yield worker
    worker.stop()


@pytest.fixture
def make_worker(transactional_db, tmp_path):
    """Factory for extra workers (two consumers, restarts after a kill)."""
    workers = []

    def factory(name: str = "worker", **env: str) -> WorkerProcess:
        worker = WorkerProcess(tmp_path / f"{name}.log", subprocess_env(**env), name=name)
        workers.append(worker)
        return worker

    yield factory
    for worker in workers:
        worker.stop()


@pytest.fixture
def site_env(transactional_db):
    """`site_env(KEY="value")`: the environment of any site process (web, Redis, worker) started by a
    test on the test database; the data it needs must be committed, hence transactional_db."""
    return subprocess_env


@pytest.fixture
def learner(db):
    """A signed-up learner with a full name on their profile."""
    return factories.account()


@pytest.fixture
def learner_client(client, learner):
    client.force_login(learner)
    return client


@pytest.fixture
def synced_content(db):
    """The real course content from content/, loaded into the test database."""
    from course.services import guides_sync

    guides_sync()


@pytest.fixture(scope="module")
def guides_synced_for_module(django_db_setup, django_db_blocker):
    """What synced_content loads, once for a module instead of once for each of its tests: the sync
    runs in a transaction that the module's end rolls back, and each test's own transaction
    (pytest-django's `db`) rolls back to it. Only for modules whose every database test asks for
    the content (their own `synced_content` asks for this): another would find it too, or not,
    depending on the order. A module-scoped fixture that asks for this one may add to it."""
    from django.db import transaction

    from course.services import guides_sync

    with django_db_blocker.unblock(), transaction.atomic():
        guides_sync(content_dir=settings.BASE_DIR / "content")
        yield
        transaction.set_rollback(True)


# Tests that train models or execute guide code, notebooks, speech synthesis or benchmarks are marked
# `slow` by their module (`pytestmark`), so `make unit` (bin/unit) can leave them out; `make test`
# runs them. bin/unit does not even import them (importing them loads torch): it reads the mark.
SLOW_MODULE = re.compile(r"^pytestmark = .*\bpytest\.mark\.slow\b", re.MULTILINE)


def declares_slow(path: Path) -> bool:
    """A test module whose pytestmark has `slow`, or a folder of nothing else (read, never imported)."""
    if path.is_dir():
        inside = [p for p in path.iterdir() if (p.is_dir() and p.name != "__pycache__") or p.name.startswith("test_")]
        return bool(inside) and all(declares_slow(p) for p in inside)
    return path.name.startswith("test_") and path.suffix == ".py" and bool(SLOW_MODULE.search(path.read_text()))


def pytest_addoption(parser):
    parser.addoption(
        "--no-slow-files",
        action="store_true",
        help="do not collect the slow files at all (bin/unit): importing them loads torch in each test process",
    )


def pytest_ignore_collect(collection_path, config):
    if config.getoption("no_slow_files") and declares_slow(collection_path):
        return True
    return None


@pytest.hookimpl(trylast=True)  # after pytest-django's ordering, whose order within each group it keeps
def pytest_collection_modifyitems(config, items):
    """The longest files first (bin/test hands whole files to two processes in this order): the slow
    ones, then those that start processes (Celery workers, servers, Chromium); the short ones left at
    the end then even out the two processes' finishing times."""
    slow_files = {item.path for item in items if item.get_closest_marker("slow")}
    long_files = {item.path for item in items if any(item.get_closest_marker(m) for m in ("integration", "browser"))}

    def rank(item) -> int:
        return 0 if item.path in slow_files else 1 if item.path in long_files else 2

    items.sort(key=rank)  # stable: the order is kept within each rank


def pytest_configure(config):
    """Tests serve static files from the source folders (the live server's static handler uses the
    finders), so names must not be the hashed ones of the production manifest storage.

    WhiteNoise looks a static file up when it is asked for (its autorefresh mode) instead of
    indexing all of STATIC_ROOT when the middleware starts: a site process starts its middleware
    once, but Django's test client starts it again for each client, about 0.1 s of CPU each time,
    in most tests, which never ask for a static file. tests/test_static_files.py serves them with
    the index, as the site does."""
    settings.STORAGES = {
        **settings.STORAGES,
        "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
    }
    settings.WHITENOISE_AUTOREFRESH = True
