"""The workshop scenario for Locust: each simulated learner does what a learner in a two-hour
workshop does, from one classroom address, with think times between steps.

    sign up ─► for each guide in order: read it (the page, its explorable figures, a byte range of
    its narration) ─► answer its quiz by htmx ─► run its lab preset and watch the results poll
    until they end ─► submit a run of their own through the API with a token, and poll its run
    page until it ends ─► compare their runs ─► open the dashboard

bench/workshop.py starts the site, runs this file with `locust --headless`, and reads what it
writes at the end (WORKSHOP_OUT): Locust's statistics per request type, the statuses seen, every
lab run a learner got accepted, and what went wrong. WORKSHOP_THINK_SCALE shrinks the think times
(1: a real workshop's pace; the short version uses less). Nothing here imports Django: it drives
the site over HTTP only, as browsers do.

Request types are named for what a learner does (Locust's `name`), so each gets its own p95.
A 5xx, a 429 without Retry-After, or any answer a learner would not expect is a failure; a 429
with Retry-After is counted, and the learner waits as told (at most MAX_WAIT seconds, scaled).
"""

from __future__ import annotations

import html
import itertools
import json
import os
import random
import re
import time
from collections import Counter
from pathlib import Path

from locust import FastHttpUser, events, task
from locust.exception import StopUser

THINK_SCALE = float(os.environ.get("WORKSHOP_THINK_SCALE", "1"))
OUT = os.environ.get("WORKSHOP_OUT", "")
MAX_WAIT = 120  # seconds a learner waits after a 429 at most (scaled as the think times)
LANGUAGE = "en"
PERCENTILES = (0.5, 0.95, 0.99)

_learner_numbers = itertools.count(1)
_run = f"{os.getpid()}-{int(time.time())}"  # user names stay unique when a site is loaded twice

STATUSES: Counter = Counter()  # "type status" -> count
THROTTLED: Counter = Counter()  # "type" -> 429s that carried Retry-After
PROBLEMS: list[str] = []  # the first few failures, in words
RUNS: list[dict] = []  # every lab run accepted: id, how, and the learner
LEARNERS = Counter()  # "signed up", "quizzes finished", "presets run", "api runs", "runs watched to the end"

CSRF_FIELD = re.compile(r'name="csrfmiddlewaretoken" value="([^"]+)"')
HX_HEADERS = re.compile(r"data-hx-headers='([^']+)'")
GUIDE_LINK = re.compile(r'href="(/en/guides/[a-z0-9-]+/)"')
PRESET_LINK = re.compile(r'href="(/en/labs/presets/[a-z0-9-]+/)"')
FIGURE_LINK = re.compile(r'href="(/en/labs/figures/[a-z0-9-]+/[a-z0-9-]+/)[^"]*"')
AUDIO = re.compile(r'<audio[^>]*\ssrc="(/media/[^"]+)"')
QUESTION_FORM = re.compile(
    r'<form method="post" action="([^"]+)" data-hx-post="[^"]+" data-hx-target="(#q\d+)".*?</form>', re.S
)
POLLER = re.compile(r'<div id="(lab-run-status|lab-results)"[^>]*?data-hx-get="([^"]+)"')
RAW_TOKEN = re.compile(r'<code id="raw-token">([^<]+)</code>')
RUN_ID = re.compile(r"/labs/runs/(\d+)/")


def think(low: float, high: float) -> None:
    time.sleep(random.uniform(low, high) * THINK_SCALE)  # gevent patches time.sleep: other learners run


def _problem(text: str) -> None:
    if len(PROBLEMS) < 50:
        PROBLEMS.append(text)


class Learner(FastHttpUser):
    """One learner of the workshop, all from one address (the load runs on the site's machine)."""

    def on_start(self) -> None:
        self.number = next(_learner_numbers)
        self.username = f"learner-{_run}-{self.number}"
        self.token = ""
        self.runs: list[int] = []
        self.sign_up()

    # ---- one request, judged as a learner would -------------------------------------------------

    def call(self, method: str, path: str, name: str, *, expect=(200,), **kwargs):
        """The reply, or None when it failed (5xx, a 429 without Retry-After, anything unexpected).
        A 429 with Retry-After makes the learner wait as told and returns the reply."""
        kwargs.setdefault("allow_redirects", False)
        with self.client.request(method, path, name=name, catch_response=True, **kwargs) as reply:
            status = reply.status_code
            STATUSES[f"{name} {status}"] += 1
            if status == 429:
                retry_after = reply.headers.get("Retry-After", "")
                if not retry_after.isdigit():
                    reply.failure("429 without Retry-After")
                    _problem(f"{name} {path}: 429 without Retry-After")
                    return None
                THROTTLED[name] += 1
                reply.success()
                think(min(int(retry_after), MAX_WAIT), min(int(retry_after), MAX_WAIT))
                return reply
            if status in expect:
                reply.success()
                return reply
            message = f"{name} {method} {path}: {status}"
            reply.failure(message)
            _problem(f"{message} {reply.text[:300] if reply.text else ''}")
            return None

    def csrf_from(self, page) -> str:
        found = CSRF_FIELD.search(page.text)
        return found.group(1) if found else ""

    # ---- the journey --------------------------------------------------------------------------------

    def sign_up(self) -> None:
        self.call("GET", f"/{LANGUAGE}/", "home page")
        think(5, 20)
        form = self.call("GET", f"/{LANGUAGE}/accounts/signup/", "sign-up form")
        if form is None:
            raise StopUser
        think(20, 60)  # typing a name, an address and a password
        password = f"workshop-Passphrase-{self.number}-{random.randrange(10**9)}"
        data = {
            "csrfmiddlewaretoken": self.csrf_from(form),
            "username": self.username,
            "full_name": f"Workshop Learner {self.number}",
            "email": f"{self.username}@example.com",
            "password1": password,
            "password2": password,
        }
        reply = self.call("POST", f"/{LANGUAGE}/accounts/signup/", "sign up", data=data, expect=(302,))
        if reply is None or reply.status_code != 302:
            raise StopUser  # refused (the limit, waited) or failed: this learner stops here
        LEARNERS["signed up"] += 1
        self.call("GET", reply.headers["Location"], "dashboard")

    @task
    def workshop(self) -> None:
        """The guides in order, as a workshop goes through them; again from the first if time is left."""
        index = self.call("GET", f"/{LANGUAGE}/guides/", "guide list")
        guides = list(dict.fromkeys(GUIDE_LINK.findall(index.text))) if index else []
        if not guides:
            _problem("the guide list lists no guide")
            raise StopUser
        for guide in guides:
            preset = self.read_guide(guide)
            think(10, 30)
            self.answer_quiz(guide.rstrip("/").rsplit("/", 1)[1])
            think(10, 30)
            if preset:
                self.run_preset(preset)
                think(10, 30)
            self.run_from_the_api()
            think(5, 20)
            self.compare()
            self.call("GET", f"/{LANGUAGE}/accounts/dashboard/", "dashboard")
            think(10, 30)

    def read_guide(self, path: str) -> str:
        page = self.call("GET", path, "guide page")
        if page is None:
            return ""
        audio = AUDIO.findall(page.text)
        if audio:  # the player fetches the start, then a range further on as the learner listens
            self.call(
                "GET", html.unescape(audio[0]), "narration range", headers={"Range": "bytes=0-65535"}, expect=(206,)
            )
        think(60, 150)  # reading
        for figure in list(dict.fromkeys(FIGURE_LINK.findall(page.text)))[:1]:
            self.call("GET", html.unescape(figure), "figure explorer")
            think(10, 30)
        if audio:
            self.call(
                "GET",
                html.unescape(audio[0]),
                "narration range",
                headers={"Range": "bytes=65536-131071"},
                expect=(206, 416),
            )
        presets = PRESET_LINK.findall(page.text)
        return presets[0] if presets else ""

    def listen(self, src: str, byte_range: str) -> None:
        """What an audio player asks for: a range of the file (416 past the end of a short recording)."""
        self.call("GET", html.unescape(src), "narration range", headers={"Range": byte_range}, expect=(206, 416))

    def answer_quiz(self, slug: str) -> None:
        landing = self.call("GET", f"/{LANGUAGE}/quizzes/{slug}/", "quiz landing")
        if landing is None or f"/{LANGUAGE}/quizzes/{slug}/start/" not in landing.text:
            return  # this guide has no quiz to start here
        think(3, 10)
        # The landing page is cached for everyone: its form fetches the learner's token when sent (site.js).
        token = self.call("GET", f"/{LANGUAGE}/csrf-token/", "csrf token", headers={"Accept": "application/json"})
        if token is None:
            return
        start = self.call(
            "POST",
            f"/{LANGUAGE}/quizzes/{slug}/start/",
            "quiz start",
            data={"csrfmiddlewaretoken": json.loads(token.text)["token"]},
            expect=(302,),
        )
        if start is None or start.status_code != 302:
            return
        attempt_path = start.headers["Location"]
        attempt = self.call("GET", attempt_path, "quiz attempt page")
        if attempt is None:
            return
        headers = json.loads(html.unescape(HX_HEADERS.search(attempt.text).group(1)))  # body's hx-headers
        for action, target, form in (
            (m.group(1), m.group(2), m.group(0)) for m in QUESTION_FORM.finditer(attempt.text)
        ):
            think(8, 25)
            data = self.answer_for(form)
            hx = {"HX-Request": "true", "HX-Current-URL": self.host + attempt_path, "HX-Target": target[1:], **headers}
            self.call("POST", html.unescape(action), "quiz answer (htmx)", data=data, headers=hx)
        think(3, 10)
        finish_path = attempt_path.rstrip("/") + "/finish/"
        finished = self.call(
            "POST", finish_path, "quiz finish", data={"csrfmiddlewaretoken": self.csrf_from(attempt)}, expect=(302,)
        )
        if finished is not None and finished.status_code == 302:
            LEARNERS["quizzes finished"] += 1
            self.call("GET", finished.headers["Location"], "quiz result")

    @staticmethod
    def answer_for(form: str) -> dict:
        """Some answer, as a learner who half knows: a choice, a number, or an order."""
        choices = re.findall(r'name="choice" value="(\d+)"', form)
        if choices:
            return {"choice": random.choice(choices)}
        ranks = sorted(set(re.findall(r'name="(rank-\d+)"', form)))
        if ranks:
            order = random.sample(range(1, len(ranks) + 1), len(ranks))
            return dict(zip(ranks, map(str, order), strict=True))
        return {"value": str(random.choice([1, 2, 4, 8, 16, 0.5]))}

    def run_preset(self, path: str) -> None:
        page = self.call("GET", path, "preset page")
        if page is None:
            return
        think(10, 30)
        reply = self.call(
            "POST", path + "run/", "preset run", data={"csrfmiddlewaretoken": self.csrf_from(page)}, expect=(302,)
        )
        if reply is None or reply.status_code != 302:
            return
        compare = reply.headers["Location"]
        ids = re.findall(r"run=(\d+)", compare)
        if not ids:  # the quota said no: the preset page says why
            self.call("GET", compare, "preset page")
            return
        LEARNERS["presets run"] += 1
        for run_id in ids:
            RUNS.append({"id": int(run_id), "how": "preset", "learner": self.username})
        self.runs += map(int, ids)
        page = self.call("GET", compare, "compare page")
        if page is not None and self.watch(page, "compare poll (htmx)"):
            LEARNERS["runs watched to the end"] += len(ids)

    def run_from_the_api(self) -> None:
        if not self.token:
            dashboard = self.call("GET", f"/{LANGUAGE}/accounts/dashboard/", "dashboard")
            if dashboard is None:
                return
            think(5, 15)
            data = {"csrfmiddlewaretoken": self.csrf_from(dashboard), "name": "workshop notebook"}
            created = self.call("POST", f"/{LANGUAGE}/accounts/tokens/", "api token create", data=data)
            found = RAW_TOKEN.search(created.text) if created is not None and created.status_code == 200 else None
            if not found:
                return
            self.token = html.unescape(found.group(1))
        # The learner's own experiment: their own seed and N, so it trains rather than reusing a result.
        body = {
            "task": "digits-mlp",
            "norm": "none",
            "effective_batch_size": 64,
            "accumulation_steps": random.choice([1, 2, 4, 8]),
            "loss_scaling": "mean",
            "optimizer": "sgd",
            "learning_rate": 0.05,
            "steps": 100,
            "seed": random.randrange(1, 10**6),
        }
        auth = {"Authorization": f"Bearer {self.token}"}
        created = self.call("POST", "/api/labs/runs", "api submit", json=body, headers=auth, expect=(201,))
        if created is None or created.status_code != 201:
            return
        run_id = json.loads(created.text)["id"]
        RUNS.append({"id": run_id, "how": "api", "learner": self.username})
        self.runs.append(run_id)
        LEARNERS["api runs"] += 1
        self.call("GET", f"/api/labs/runs/{run_id}", "api run", headers=auth)
        page = self.call("GET", f"/{LANGUAGE}/labs/runs/{run_id}/", "run page")
        if page is not None and self.watch(page, "run poll (htmx)"):
            LEARNERS["runs watched to the end"] += 1

    def watch(self, page, name: str, longest: float = 900) -> bool:
        """Polls as htmx does (every 1 s, `data-hx-trigger`) until the fragment stops polling: the runs ended."""
        found = POLLER.search(page.text)
        deadline = time.monotonic() + longest
        while found and time.monotonic() < deadline:
            time.sleep(1)  # the page's own interval, never scaled: this is the browser, not the learner
            url = html.unescape(found.group(2))
            reply = self.call("GET", url, name, headers={"HX-Request": "true", "HX-Target": found.group(1)})
            if reply is None:
                return False
            if reply.status_code == 200:
                found = POLLER.search(reply.text)
        return not found

    def compare(self) -> None:
        if len(self.runs) >= 2:
            query = "&".join(f"run={run_id}" for run_id in self.runs[-6:])
            self.call("GET", f"/{LANGUAGE}/labs/compare/?{query}", "compare page")


@events.quitting.add_listener
def write_results(environment, **_kwargs) -> None:
    """What bench/workshop.py reads: Locust's figures per request type, and what the learners saw."""
    if not OUT:
        return
    types = {}
    for entry in environment.stats.entries.values():
        types[entry.name] = {
            "requests": entry.num_requests,
            "failures": entry.num_failures,
            "median_ms": entry.get_response_time_percentile(0.5),
            "p95_ms": entry.get_response_time_percentile(0.95),
            "p99_ms": entry.get_response_time_percentile(0.99),
            "max_ms": entry.max_response_time,
            "throttled": THROTTLED[entry.name],
        }
    total = environment.stats.total
    Path(OUT).write_text(
        json.dumps(
            {
                "types": types,
                "total": {"requests": total.num_requests, "failures": total.num_failures},
                "statuses": dict(STATUSES),
                "learners": dict(LEARNERS),
                "runs": RUNS,
                "problems": PROBLEMS,
            },
            indent=1,
        )
    )
