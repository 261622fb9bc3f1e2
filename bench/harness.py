"""A throw-away copy of the site for the benchmarks: production settings, loopback only.

`running_site()` makes a temporary state folder, starts a Redis of its own on a free port,
prepares the database, content, static files and signing key as bin/setup does, seeds a learner
with a real certificate and an API token (bench/seed.py), and serves the site with gunicorn.
Optionally it also starts a Celery worker on the `gpu` queue as the run command does. Everything
it started is stopped, and the folder removed, when the `with` block ends. Unlike the run command,
gunicorn writes no access log here: the benchmarks measure the site, not a terminal.
"""

from __future__ import annotations

import http.client
import http.cookies
import json
import os
import platform
import re
import secrets
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time
import urllib.parse
from collections.abc import Callable, Iterator
from contextlib import closing, contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
PYTHON = sys.executable

# Variables of the caller's environment that would point the copy at someone else's data.
_FOREIGN = {
    *"DATABASE_URL REDIS_URL CACHE_URL CACHE_KEY_PREFIX STATE_DIR MEDIA_ROOT STATIC_ROOT".split(),
    *"CERT_KEY_DIR CONTENT_DIR EMAIL_HOST HTTPS BEHIND_PROXY".split(),
}


# Every benchmark request comes from one address, as no real visitor's would: the rate limiters
# still run (and cost what they cost), with limits that no benchmark reaches.
HIGH_LIMITS = {
    "CERTIFICATE_LOOKUP_RATE": "100000000/m",
    "QUIZ_ANSWER_RATE": "100000000/m",
    "QUIZ_START_RATE": "100000000/h",
    "LAB_SUBMIT_RATE": "100000000/h",
}


@dataclass
class Site:
    url: str  # http://127.0.0.1:PORT
    env: dict[str, str]  # the environment the site runs with (workers and in-process Django use it too)
    state_dir: Path
    seed: dict[str, Any]  # what bench/seed.py made: page paths, certificate ID, API token
    web_pid: int  # the gunicorn master
    processes: _Processes = field(repr=False)

    def use_database(self) -> None:
        """Django in this process, on the copy's database and settings, as its web server runs:
        the caller's own DATABASE_URL and the like (e.g. the test suite's PostgreSQL) are dropped."""
        for name in _FOREIGN:
            os.environ.pop(name, None)
        os.environ.update(self.env)
        import django

        django.setup()

    def start_worker(self, *, beat: bool = True) -> subprocess.Popen:
        """`celery -A config worker -Q gpu --concurrency 1`, with beat embedded (the run command runs it apart)."""
        command = [PYTHON, "-m", "celery", "-A", "config", "worker", "-Q", "gpu", "--concurrency", "1"]
        command += ["--loglevel", "INFO", "--hostname", "bench@%h", "--without-gossip", "--without-mingle"]
        if beat:
            command += ["--beat", "--schedule", str(self.state_dir / "celerybeat-schedule")]
        log = self.state_dir / "worker.log"
        process = self.processes.start(command, self.env, log)
        # Ready once its pool child has loaded PyTorch and trained its warm-up step (labs.workers.pool_child_prepare).
        wait_until(lambda: b"ready to train" in log.read_bytes(), 180, "the Celery worker's pool child", process, log)
        return process

    def worker_warm_up_seconds(self) -> float | None:
        """How long the worker's pool child took to load PyTorch and warm up, from its log line."""
        found = re.search(rb"warmed up in ([0-9.]+) s", (self.state_dir / "worker.log").read_bytes())
        return float(found.group(1)) if found else None


class _Processes:
    """Child processes, each in its own session so that stopping one stops its children too."""

    def __init__(self) -> None:
        self.started: list[tuple[subprocess.Popen, Any]] = []

    def start(self, command: list[str], env: dict[str, str], log: Path) -> subprocess.Popen:
        out = open(log, "ab")
        process = subprocess.Popen(
            command,
            cwd=ROOT,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
        )
        self.started.append((process, out))
        return process

    def stop_all(self) -> None:
        for process, out in reversed(self.started):
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGTERM)
                try:
                    process.wait(timeout=15)
                except subprocess.TimeoutExpired:
                    os.killpg(process.pid, signal.SIGKILL)
                    process.wait(timeout=10)
            out.close()
        self.started.clear()


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_until(
    ready: Callable[[], bool],
    timeout: float,
    what: str,
    process: subprocess.Popen | None = None,
    log: Path | None = None,
) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process is not None and process.poll() is not None:
            raise RuntimeError(f"{what} exited early:\n{_tail(log)}")
        try:
            if ready():
                return
        except OSError:
            pass
        time.sleep(0.1)
    raise RuntimeError(f"{what} was not ready after {timeout:.0f} s:\n{_tail(log)}")


def _tail(log: Path | None) -> str:
    return log.read_text(errors="replace")[-3000:] if log and log.exists() else ""


def http_get(
    url: str, path: str, headers: dict[str, str] | None = None, timeout: float = 10
) -> tuple[int, dict[str, str], bytes]:
    """One GET without following redirects: status, headers, body."""
    host, port = url.removeprefix("http://").split(":")
    connection = http.client.HTTPConnection(host, int(port), timeout=timeout)
    try:
        connection.request("GET", path, headers=headers or {})
        response = connection.getresponse()
        return response.status, dict(response.getheaders()), response.read()
    finally:
        connection.close()


@dataclass
class Reply:
    status: int
    headers: http.client.HTTPMessage
    body: bytes
    seconds: float  # connect, send, and read the whole answer

    def json(self) -> Any:
        return json.loads(self.body)


class Browser:
    """A minimal HTTP client with a cookie jar, one connection per request (gunicorn's sync
    workers close each one), timing each round trip."""

    def __init__(self, url: str) -> None:
        self.host, port = url.removeprefix("http://").split(":")
        self.port = int(port)
        self.cookies: dict[str, str] = {}

    def request(
        self, method: str, path: str, body: bytes | None = None, headers: dict[str, str] | None = None
    ) -> Reply:
        headers = dict(headers or {})
        if self.cookies:
            headers["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        started = time.perf_counter()
        connection = http.client.HTTPConnection(self.host, self.port, timeout=30)
        try:
            connection.request(method, path, body=body, headers=headers)
            response = connection.getresponse()
            data = response.read()
        finally:
            connection.close()
        seconds = time.perf_counter() - started
        for header in response.msg.get_all("Set-Cookie") or []:
            for name, morsel in http.cookies.SimpleCookie(header).items():
                self.cookies[name] = morsel.value
        return Reply(response.status, response.msg, data, seconds)

    def get(self, path: str, headers: dict[str, str] | None = None) -> Reply:
        return self.request("GET", path, headers=headers)

    def post_form(self, path: str, form: dict[str, Any], headers: dict[str, str] | None = None) -> Reply:
        body = urllib.parse.urlencode(form, doseq=True).encode()
        headers = {
            "Content-Type": "application/x-www-form-urlencoded",
            "X-CSRFToken": self.cookies.get("csrftoken", ""),
            "Origin": f"http://{self.host}:{self.port}",
            **(headers or {}),
        }
        return self.request("POST", path, body, headers)

    def post_json(self, path: str, data: Any, headers: dict[str, str] | None = None) -> Reply:
        return self.request(
            "POST", path, json.dumps(data).encode(), {"Content-Type": "application/json", **(headers or {})}
        )


def site_env(
    *,
    state_dir: Path,
    redis_url: str,
    port: int,
    extra: dict[str, str] | None = None,
    limits: dict[str, str] = HIGH_LIMITS,
) -> dict[str, str]:
    """Production settings from the environment, as an operator would set them (see README); `limits`:
    the rates set (HIGH_LIMITS by default; {} keeps the site's own, as bench/workshop.py does)."""
    env = {k: v for k, v in os.environ.items() if k not in _FOREIGN}
    env.update(
        DJANGO_SETTINGS_MODULE="config.settings",
        DEBUG="false",
        SECRET_KEY=secrets.token_urlsafe(64),
        ALLOWED_HOSTS="127.0.0.1",
        SITE_URL=f"http://127.0.0.1:{port}",
        STATE_DIR=str(state_dir),
        STATIC_ROOT=str(state_dir / "staticfiles"),
        REDIS_URL=redis_url,
        LOG_LEVEL="WARNING",
        PYTHONUNBUFFERED="1",
        **limits,
    )
    env.update(extra or {})
    return env


def _manage(env: dict[str, str], *args: str) -> str:
    result = subprocess.run(
        [PYTHON, "manage.py", *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=600
    )
    if result.returncode != 0:
        raise RuntimeError(f"manage.py {' '.join(args)} failed:\n{result.stdout[-2000:]}{result.stderr[-3000:]}")
    return result.stdout


def _redis_binary() -> str:
    found = shutil.which("redis-server") or str(ROOT / ".venv" / "bin" / "redis-server")
    if not Path(found).exists():
        raise RuntimeError("redis-server not found; run bin/setup")
    return found


@contextmanager
def running_site(
    *,
    workers: int = 2,
    extra_env: dict[str, str] | None = None,
    state_from: Path | None = None,
    limits: dict[str, str] = HIGH_LIMITS,
) -> Iterator[Site]:
    """The site under gunicorn (sync workers) with its own Redis and SQLite database; with
    `state_from`, a copy of what the run command left in that STATE_DIR (see copy_state)."""
    processes = _Processes()
    state_dir = Path(tempfile.mkdtemp(prefix="gac-bench-"))
    try:
        if state_from is not None:
            copy_state(state_from, state_dir)
        redis_url = _start_redis(processes, state_dir)
        web_port = free_port()
        env = site_env(state_dir=state_dir, redis_url=redis_url, port=web_port, extra=extra_env, limits=limits)
        seed = _prepare(env)
        log = state_dir / "gunicorn.log"
        command = [PYTHON, "-m", "gunicorn", "config.wsgi", "--bind", f"127.0.0.1:{web_port}"]
        command += ["--workers", str(workers), "--worker-class", "sync", "--forwarded-allow-ips", "127.0.0.1"]
        web = processes.start(command, env, log)
        url = f"http://127.0.0.1:{web_port}"
        wait_until(lambda: http_get(url, "/ping", timeout=2)[0] == 200, 60, "gunicorn", web, log)
        yield Site(url=url, env=env, state_dir=state_dir, seed=seed, web_pid=web.pid, processes=processes)
    finally:
        processes.stop_all()
        shutil.rmtree(state_dir, ignore_errors=True)


def copy_state(source: Path, state_dir: Path) -> None:
    """The database, media (the narration) and signing keys of the site `make run` serves from
    `source` (its STATE_DIR), so that a benchmark loads the pages learners get: narration, the
    reference runs' figures, the real content. The database is copied with SQLite's backup, which
    stays consistent while that site runs; the copy's own learner is then added to it (seed.py)."""
    database = source / "db.sqlite3"
    if not database.exists():
        raise SystemExit(f"no site state in {source}: run `make run` first (it leaves the site's state there)")
    with closing(sqlite3.connect(database)) as original, closing(sqlite3.connect(state_dir / "db.sqlite3")) as copy:
        original.backup(copy)
    for folder in ("media", "keys"):
        if (source / folder).is_dir():
            shutil.copytree(source / folder, state_dir / folder)


def _start_redis(processes: _Processes, state_dir: Path) -> str:
    """A Redis of the copy's own on a free port, keeping nothing on disk."""
    port, log = free_port(), state_dir / "redis.log"
    command = [_redis_binary(), "--port", str(port), "--bind", "127.0.0.1", "--dir", str(state_dir)]
    command += ["--save", "", "--appendonly", "no", "--daemonize", "no", "--loglevel", "warning"]
    process = processes.start(command, dict(os.environ), log)
    wait_until(lambda: _redis_answers(port), 20, "redis-server", process, log)
    return f"redis://127.0.0.1:{port}/0"


def _prepare(env: dict[str, str]) -> dict[str, Any]:
    """What bin/setup does (narration aside), then bench/seed.py; returns what the seed made."""
    _manage(env, "migrate", "--noinput", "-v", "0")
    _manage(env, "sync_content")
    _manage(env, "sync_quizzes")
    _manage(env, "collectstatic", "--noinput", "-v", "0")
    _manage(env, "ensure_signing_key")
    command = [PYTHON, str(ROOT / "bench" / "seed.py")]
    seeded = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    if seeded.returncode != 0:
        raise RuntimeError(f"bench/seed.py failed:\n{seeded.stdout[-2000:]}{seeded.stderr[-3000:]}")
    return json.loads(seeded.stdout.strip().splitlines()[-1])


def _redis_answers(port: int) -> bool:
    with socket.create_connection(("127.0.0.1", port), timeout=1) as sock:
        sock.sendall(b"PING\r\n")
        return sock.recv(16).startswith(b"+PONG")


def cpu_seconds(pid: int) -> float:
    """CPU time (user + system) used so far by a process and its live children, from /proc."""
    total = 0.0
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:  # the process ended meanwhile
            continue
        if stat.parent.name == str(pid) or fields[1] == str(pid):  # fields[1]: the parent's pid
            total += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return total


def machine_description() -> dict[str, Any]:
    """What the figures were measured on."""
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    memory_gib = None
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                memory_gib = round(int(line.split()[1]) / 1024 / 1024, 1)
    except OSError:
        pass
    return {
        "cpu": cpu,
        "cores": os.cpu_count(),
        "memory_gib": memory_gib,
        "os": platform.platform(),
        "python": platform.python_version(),
        "date": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
    }
