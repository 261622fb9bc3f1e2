"""The run command under test: the real supervisord with the very config bin/run uses when it
starts a Redis of its own (config/supervisord-with-redis.conf), on free ports, a temporary
STATE_DIR and the test database. The set-up bin/run does first is the test session's own.

Starting the stack costs seconds, so one serves a whole test module: each test kills or restarts
some of its processes and checks that supervisord brought them back (a test that stops it for
good, like Ctrl-C, leaves the next test a fresh one). Every run of the stack holds at
PAUSE_AT_STEP until the release file exists (tests/held_runs.py: the stack's settings are the site's
with a worker task that holds), so a test
acts on a run at a known step whatever the machine's speed; between tests the file exists and
runs go straight through. Timings are shortened so a dead worker is noticed in seconds.
"""

import os
import re
import signal
import socket
import subprocess
import threading
import time
import xmlrpc.client
from pathlib import Path

import pytest
import redis
import requests
from supervisor.xmlrpc import SupervisorTransport

from accounts.models import ApiToken
from tests.held_runs import held_worker_env
from tests.polling import wait_for

ROOT = Path(__file__).resolve().parents[2]
CONFIG = ROOT / "config" / "supervisord-with-redis.conf"
CTL_CONFIG = ROOT / "config" / "supervisord.conf"  # what operators give supervisorctl
PROGRAMS = ("redis", "web", "worker", "beat")
PAUSE_AT_STEP = 3
FAST = {
    "LAB_HEARTBEAT_INTERVAL": "0.5",
    "LAB_STALE_AFTER": "5",
    "LAB_PROGRESS_INTERVAL": "0.2",
    "LAB_SWEEP_INTERVAL": "1",
    "LAB_DISPATCH_INTERVAL": "1",
    "LAB_RESEND_AFTER": "30",
    "LAB_MAX_ACTIVE_RUNS": "50",  # a burst must not meet the per-learner quota
    "LAB_SUBMIT_RATE": "1000/h",  # nor the submission rate limit
    "LAB_TORCH_THREADS": "1",
    "WEB_CONCURRENCY": "2",  # two gunicorn workers: the machines running the suite have few cores
    "LAB_REFERENCE_SWEEPS": "false",  # the worker trains only the tests' runs (each would hold at the pause)
    "NARRATION_ON_START": "false",  # tests/faults/test_narration_after_start.py turns it on
}
SERVER_ERROR = re.compile(rb'" 5\d\d |Internal Server Error')  # gunicorn's access log, Django's error log
WORKER_READY = re.compile(rb"@\S+ ready\.")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class RunCommand:
    """supervisord and its programs: redis, web (gunicorn), worker (Celery), beat (Celery beat)."""

    PROGRAMS = PROGRAMS
    PAUSE_AT_STEP = PAUSE_AT_STEP

    def __init__(self, tmp_path: Path) -> None:
        self.tmp_path = tmp_path
        self.state_dir = tmp_path / "state"
        self.log_path = tmp_path / "run-command.log"
        self.release_file = tmp_path / "release"
        self.process: subprocess.Popen | None = None
        self.test_began_at = 0  # where the current test's part of the output begins

    def start(self, env_for) -> None:
        web_port, redis_port = free_port(), free_port()
        self.redis_url = f"redis://127.0.0.1:{redis_port}/0"
        self.base_url = f"http://127.0.0.1:{web_port}"
        self.state_dir.mkdir(exist_ok=True)
        self.release()
        self.env = env_for(
            STATE_DIR=str(self.state_dir),
            WEB_PORT=str(web_port),
            REDIS_PORT=str(redis_port),
            REDIS_URL=self.redis_url,
            **held_worker_env(PAUSE_AT_STEP, self.release_file),
            **FAST,
        )
        self.log_path.touch()
        started_at = self.log_size()  # a stack started again after Ctrl-C appends to the same log
        with open(self.log_path, "ab") as log:
            self.process = subprocess.Popen(
                [str(ROOT / ".venv" / "bin" / "supervisord"), "-n", "-c", str(CONFIG)],
                cwd=ROOT,
                env=self.env,
                stdout=log,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                start_new_session=True,
            )
        wait_for(self._all_running, 90, "every program to be running")
        wait_for(self.web_answers, 90, "the web server to answer")
        wait_for(self.redis_answers, 30, "Redis to answer")
        wait_for(lambda: WORKER_READY.search(self.output_since(started_at)), 90, "the Celery worker to be ready")

    def running(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def stop(self) -> None:
        """SIGTERM to supervisord, as an operator's service manager stops it; then nothing may be left."""
        if not self.running():
            return
        pids = self.all_pids()
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(timeout=60)
        finally:
            for pid in pids:  # only if supervisord failed at its job: never leave a stray process behind
                if self.alive(pid):
                    os.kill(pid, signal.SIGKILL)

    # What supervisord says, through its XML-RPC interface (the one supervisorctl uses).
    def info(self, name: str) -> dict:
        transport = SupervisorTransport(None, None, f"unix://{self.state_dir}/supervisor.sock")
        try:  # a connection per question: one cut short by a restart is never reused
            return xmlrpc.client.ServerProxy("http://127.0.0.1", transport).supervisor.getProcessInfo(name)
        finally:
            transport.close()

    def pids(self) -> dict[str, int]:
        return {name: self.info(name)["pid"] for name in PROGRAMS}

    def all_pids(self) -> list[int]:
        """supervisord and every process under it."""
        return [self.process.pid, *self.descendants(self.process.pid)]

    def pool_child(self) -> int:
        """The Celery pool process (concurrency 1): the one that trains."""
        return wait_for(lambda: self.children(self.pids()["worker"]), 60, "the worker's pool process")[0]

    def ctl(self, *args: str) -> str:
        """supervisorctl, as the README tells operators to run it."""
        command = [str(ROOT / ".venv" / "bin" / "supervisorctl"), "-c", str(CTL_CONFIG), *args]
        done = subprocess.run(command, cwd=ROOT, env=self.env, capture_output=True, text=True, timeout=120)
        return done.stdout + done.stderr

    def wait_restarted(self, name: str, old_pid: int) -> int:
        def new_pid() -> int:
            info = self.info(name)
            return info["statename"] == "RUNNING" and info["pid"] not in (0, old_pid) and info["pid"]

        return wait_for(new_pid, 60, f"supervisord to start {name} again")

    # Processes as Linux shows them in /proc.
    @staticmethod
    def alive(pid: int) -> bool:
        """Running, not a zombie waiting to be reaped."""
        try:
            return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
        except (OSError, IndexError):
            return False

    @staticmethod
    def children(pid: int) -> list[int]:
        found = []
        for entry in Path("/proc").iterdir():
            if entry.name.isdigit():
                try:
                    fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
                except OSError:
                    continue
                if int(fields[1]) == pid and fields[0] != "Z":
                    found.append(int(entry.name))
        return found

    @classmethod
    def descendants(cls, pid: int) -> list[int]:
        found = cls.children(pid)
        return found + [grandchild for child in found for grandchild in cls.descendants(child)]

    @staticmethod
    def command_line(pid: int) -> str:
        try:
            return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            return ""

    # The test-only pause of lab runs.
    def hold(self) -> None:
        self.release_file.unlink(missing_ok=True)

    def release(self) -> None:
        self.release_file.touch()

    def log_size(self) -> int:
        return self.log_path.stat().st_size

    def output_since(self, offset: int) -> bytes:
        with open(self.log_path, "rb") as log:
            log.seek(offset)
            return log.read()

    def server_errors(self) -> list[str]:
        """Lines of the run command's output since the test began that show an HTTP 5xx or a Django error."""
        lines = self.output_since(self.test_began_at).splitlines()
        return [line.decode(errors="replace") for line in lines if SERVER_ERROR.search(line)]

    def web_answers(self) -> bool:
        try:
            return requests.get(f"{self.base_url}/api/labs/runs/0", timeout=10).status_code == 404
        except requests.RequestException:  # refused while it binds; slow while its workers import Django
            return False

    def redis_answers(self) -> bool:
        try:
            return bool(redis.Redis.from_url(self.redis_url, socket_connect_timeout=1).ping())
        except redis.RedisError:
            return False

    def _all_running(self) -> bool:
        try:
            return all(self.info(name)["statename"] == "RUNNING" for name in PROGRAMS)
        except (OSError, xmlrpc.client.Fault):  # the socket is not there yet
            if not self.running():
                raise RuntimeError(f"supervisord exited:\n{self.log_path.read_text()[-3000:]}") from None
            return False


@pytest.fixture(scope="module")
def run_command_stack(tmp_path_factory):
    stack = RunCommand(tmp_path_factory.mktemp("run-command"))
    yield stack
    stack.stop()


@pytest.fixture
def run_command(run_command_stack, site_env):
    """The module's run command, started on first use (or again after a test stopped it). Runs go
    straight through unless the test calls `hold()`."""
    stack = run_command_stack
    if not stack.running():
        stack.start(site_env)
    stack.release()
    stack.test_began_at = stack.log_size()
    yield stack
    stack.release()


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
def api_token(run_command, learner) -> str:
    return ApiToken.issue(user=learner, name="faults")[1]


@pytest.fixture
def labs_api(run_command, api_token) -> LabsApi:
    return LabsApi(run_command.base_url, api_token)


class Poller:
    """A learner's run page polling the API in a thread through a fault, retrying while the server
    is away, as the page's htmx polling does. Keeps each answer's status code and time."""

    def __init__(self, base_url: str, token: str, run_id: int) -> None:
        self.api, self.run_id = LabsApi(base_url, token), run_id
        self.answers: list[tuple[float, int, dict]] = []
        self.refused = 0
        self.done = threading.Event()
        self.thread = threading.Thread(target=self._poll, daemon=True)

    def __enter__(self) -> "Poller":
        self.thread.start()
        wait_for(lambda: self.answers, 60, "a first answer to the poller")
        return self

    def __exit__(self, *exc: object) -> None:
        self.done.set()
        self.thread.join(timeout=60)

    def answered_after(self, moment: float) -> dict | None:
        """The latest body answered after `moment` (time.monotonic())."""
        later = [body for at, code, body in self.answers if at > moment and code == 200]
        return later[-1] if later else None

    def codes(self) -> list[int]:
        return [code for _at, code, _body in self.answers]

    def _poll(self) -> None:
        while not self.done.wait(0.2):
            try:
                response = self.api.read(self.run_id)
            except requests.RequestException:  # refused while the server is away, or cut off by the kill
                self.refused += 1
                continue
            body = response.json() if response.headers.get("Content-Type", "").startswith("application/json") else {}
            self.answers.append((time.monotonic(), response.status_code, body))


@pytest.fixture
def poller(run_command, api_token):
    """`with poller(run_id) as p:` a learner's page polling that run through the test's fault."""
    return lambda run_id: Poller(run_command.base_url, api_token, run_id)
