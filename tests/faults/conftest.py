"""The run command's processes as real subprocesses on the test database, for the fault tests.

The commands are read from the Procfile and run through the shell in their own process groups,
exactly as honcho (the run command) runs them: Redis (bin/redis-server, data in the test's own
STATE_DIR), gunicorn serving config.wsgi, and the Celery worker with its embedded beat. A test can
kill, stop and start each one again. Timings are shortened through the environment so that a dead
worker or a lost message is noticed in seconds.
"""

import os
import re
import signal
import socket
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

import pytest
import redis
import requests
from honcho.environ import parse_procfile

from accounts.models import ApiToken

ROOT = Path(__file__).resolve().parents[2]
FAST = {
    "LAB_HEARTBEAT_INTERVAL": "0.5",
    "LAB_STALE_AFTER": "4",
    "LAB_PROGRESS_INTERVAL": "0.2",
    "LAB_SWEEP_INTERVAL": "1",
    "LAB_DISPATCH_INTERVAL": "1",
    "LAB_RESEND_AFTER": "30",
    "LAB_MAX_ACTIVE_RUNS": "50",  # a burst must not meet the per-learner quota
    "WEB_CONCURRENCY": "2",  # two gunicorn workers: the machines running the suite have few cores
}
SERVER_ERROR = re.compile(rb'" 5\d\d |Internal Server Error')  # gunicorn's access log, Django's error log


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class ProcfileProcess:
    """One Procfile line: started like honcho starts it, ready when `ready()` says so."""

    def __init__(self, command: str, env: dict[str, str], log_path: Path, ready: Callable[[], bool]) -> None:
        self.command, self.env, self.log_path, self.ready = command, env, log_path, ready
        self.process: subprocess.Popen | None = None
        self.log_start = 0  # where this start's output begins in the log

    def start(self, timeout: float = 90) -> None:
        self.log_start = self.log_path.stat().st_size if self.log_path.exists() else 0
        with open(self.log_path, "ab") as log:
            self.process = subprocess.Popen(  # shell=True: a Procfile line is a shell command
                self.command,
                shell=True,
                cwd=ROOT,
                env=self.env,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        deadline = time.monotonic() + timeout
        while not self.ready():
            if self.process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"{self.command!r} did not start:\n{self.output()[-3000:]}")
            time.sleep(0.2)

    def output(self) -> str:
        """What this start printed so far."""
        with open(self.log_path, "rb") as log:
            log.seek(self.log_start)
            return log.read().decode(errors="replace")

    def kill_hard(self) -> None:
        """SIGKILL the whole process group (worker, pool children, beat), like a machine dying."""
        self._signal(signal.SIGKILL)

    def stop(self) -> None:
        """SIGTERM, as Ctrl-C in honcho or an operator's restart: let it finish cleanly."""
        self._signal(signal.SIGTERM)

    def _signal(self, signum: int) -> None:
        if self.process is None or self.process.poll() is not None:
            return
        os.killpg(self.process.pid, signum)
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait(timeout=10)
        try:  # the shell may be gone while a child lingers
            os.killpg(self.process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


class RunCommand:
    """Redis, web and worker of `make run`, on free ports, with the test's own state folder."""

    def __init__(self, env_for: Callable[..., dict[str, str]], tmp_path: Path) -> None:
        lines = parse_procfile((ROOT / "Procfile").read_text()).processes
        web_port, redis_port = free_port(), free_port()
        self.redis_url = f"redis://127.0.0.1:{redis_port}/0"
        self.base_url = f"http://127.0.0.1:{web_port}"
        (tmp_path / "state").mkdir()
        env = env_for(
            STATE_DIR=str(tmp_path / "state"),
            WEB_PORT=str(web_port),
            REDIS_PORT=str(redis_port),
            REDIS_URL=self.redis_url,
            **FAST,
        )
        self.redis = ProcfileProcess(lines["redis"], env, tmp_path / "redis.log", self._redis_answers)
        self.web = ProcfileProcess(lines["web"], env, tmp_path / "web.log", self._web_answers)
        self.worker = ProcfileProcess(lines["worker"], env, tmp_path / "worker.log", self._worker_ready)

    def start(self) -> None:
        for process in (self.redis, self.web, self.worker):
            process.start()

    def stop(self) -> None:
        for process in (self.worker, self.web, self.redis):
            process.stop()

    def server_errors(self) -> list[str]:
        """Lines of the web server's log (all its starts) that show an HTTP 5xx or a Django error."""
        lines = self.web.log_path.read_bytes().splitlines()
        return [line.decode(errors="replace") for line in lines if SERVER_ERROR.search(line)]

    def _redis_answers(self) -> bool:
        try:
            return bool(redis.Redis.from_url(self.redis_url, socket_connect_timeout=1).ping())
        except redis.RedisError:
            return False

    def _web_answers(self) -> bool:
        try:
            return requests.get(f"{self.base_url}/api/labs/runs/0", timeout=10).status_code == 404
        except requests.RequestException:  # refused while it binds; slow while its workers import Django
            return False

    def _worker_ready(self) -> bool:
        return "ready." in self.worker.output()


@pytest.fixture
def run_command(site_env, tmp_path):
    """The three processes of the run command, started; stopped (all of them) after the test."""
    stack = RunCommand(site_env, tmp_path)
    try:
        stack.start()
        yield stack
    finally:
        stack.stop()


class LabsApi:
    """The labs API over HTTP with a personal token. Keeps every status code it was answered."""

    def __init__(self, base_url: str, token: str) -> None:
        self.base_url = base_url
        self.session = requests.Session()
        self.session.headers["Authorization"] = f"Bearer {token}"
        self.codes: list[int] = []

    def submit(self, config: dict) -> requests.Response:
        return self._remember(self.session.post(f"{self.base_url}/api/labs/runs", json=config, timeout=30))

    def read(self, run_id: int) -> requests.Response:
        return self._remember(self.session.get(f"{self.base_url}/api/labs/runs/{run_id}", timeout=30))

    def _remember(self, response: requests.Response) -> requests.Response:
        self.codes.append(response.status_code)
        return response


@pytest.fixture
def labs_api(run_command, learner) -> LabsApi:
    _token, raw = ApiToken.issue(user=learner, name="faults")
    return LabsApi(run_command.base_url, raw)
