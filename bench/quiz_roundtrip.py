"""Quiz answer round trip: the htmx POST of one answer, through gunicorn, next to the minimal view.

Starts a throw-away copy of the site (bench/harness.py, production settings, gunicorn with 2 sync
workers, loopback only). A learner's browser (one client with its cookies) takes the first
guide's quiz again and again; each answer is posted as htmx does (HX-Request, X-CSRFToken) and
graded by the server, which answers with the question's card and the progress line. Right
before or after each answer (alternately) the same client fetches the minimal view `/ping`.
Both are timed from connecting to reading the whole answer; the medians and their ratio are
reported.

Then the web server's CPU time per request of each kind (its processes' user + system time from
/proc: it counts the work, not the waiting for a core of a busy machine), measured over blocks of
one kind, not around each request: a block of `--answers` pings from the same client, and a block
of as many answers (to attempts started beforehand, one per fresh client, since a question is
answered once and a learner has one unfinished attempt), each read after a settle of 0.2 s, divided
by the count. Read around each single request, as this script did before, it was unreliable: /proc
counts in 10 ms ticks while a request costs 1 to 5 ms, so each window read 0, 10 or 20 ms, and
whatever a worker did while a window was open was charged to that request (a first answer in a
worker, 20 to 27 ms; work left from the request before): one run reported answer 4.55 ms and
/ping 4.95 ms, where the load benchmark measures about 0.7 ms per /ping. Over a block the work a
worker does after the last byte is counted with its own kind, and the ticks' error is under 0.1 ms
per request (checked against /proc/PID/schedstat's nanoseconds: 5.25 against 5.24 ms per answer,
1.40 against 1.36 ms per /ping).

    .venv/bin/python bench/quiz_roundtrip.py [--answers 100] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "bench"), str(ROOT)]

from harness import Browser, Site, cpu_seconds, machine_description, running_site  # noqa: E402


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--answers", type=int, default=100, help="answers timed (each with a /ping)")
    parser.add_argument("--json", type=Path, default=None, help="also write the results to this file")
    return parser.parse_args(argv)


def use_site_database(site: Site) -> None:
    """This process reads the copy's database (to know the right answers), as its web server does."""
    site.use_database()


def start_attempt(browser: Browser, site: Site):
    from quizzes.models import Attempt

    slug = site.seed["quiz_slug"]
    assert browser.get(site.seed["quiz_path"]).status == 200
    token = browser.get("/en/csrf-token/").json()["token"]  # as the landing page's form does when sent
    reply = browser.post_form(f"/en/quizzes/{slug}/start/", {"csrfmiddlewaretoken": token})
    if reply.status != 302:
        raise RuntimeError(f"starting the quiz answered {reply.status}: {reply.body[:300]!r}")
    key = reply.headers["Location"].rstrip("/").split("/")[-1]
    return Attempt.objects.get(key=key)


def measure(site: Site, answers: int) -> dict[str, Any]:
    from seed import correct_form

    browser = Browser(site.url)
    for _ in range(20):  # warm-up: both workers loaded
        browser.get("/ping")
    timings: dict[str, Any] = {"answer": [], "ping": []}
    while len(timings["answer"]) < answers:
        attempt = start_attempt(browser, site)
        for number in range(1, attempt.total + 1):
            if len(timings["answer"]) == answers:
                break
            path = answer_path(attempt, number)
            form = correct_form(attempt, number)
            order = ("ping", "answer") if len(timings["answer"]) % 2 == 0 else ("answer", "ping")  # alternate
            for name in order:
                reply = browser.get("/ping") if name == "ping" else browser.post_form(path, form, HTMX)
                check(name, reply)
                timings[name].append(reply.seconds * 1000)
        finish(browser, attempt)
    timings["cpu_ms_per_request"] = {
        "answer": answer_block_cpu_ms(site, answers),
        "ping": block_cpu_ms(site, [lambda: browser.get("/ping")] * answers, "ping"),
    }
    return timings


SETTLE_SECONDS = 0.2  # for a worker to finish what it does after the last byte


def block_cpu_ms(site: Site, requests: list, name: str) -> float:
    """The web server's CPU milliseconds per request over a block of requests of one kind."""
    time.sleep(SETTLE_SECONDS)
    before = cpu_seconds(site.web_pid)
    for send in requests:
        check(name, send())
    time.sleep(SETTLE_SECONDS)
    return (cpu_seconds(site.web_pid) - before) * 1000 / len(requests)


def answer_block_cpu_ms(site: Site, answers: int) -> float:
    """Answers to attempts started beforehand by fresh clients (each question is answered once)."""
    from seed import correct_form

    requests, started = [], []
    while len(requests) < answers:
        client = Browser(site.url)
        attempt = start_attempt(client, site)
        started.append((client, attempt))
        for number in range(1, min(attempt.total, answers - len(requests)) + 1):
            path, form = answer_path(attempt, number), correct_form(attempt, number)
            requests.append(lambda c=client, p=path, f=form: c.post_form(p, f, HTMX))
    cpu_ms = block_cpu_ms(site, requests, "answer")
    for client, attempt in started:
        finish(client, attempt)
    return cpu_ms


def answer_path(attempt, number: int) -> str:
    return f"/en/quizzes/{attempt.quiz.slug}/attempts/{attempt.key}/questions/{number}/"


def check(name: str, reply) -> None:
    if reply.status != 200:
        raise RuntimeError(f"{name} answered {reply.status}: {reply.body[:300]!r}")


def finish(browser: Browser, attempt) -> None:
    browser.post_form(
        f"/en/quizzes/{attempt.quiz.slug}/attempts/{attempt.key}/finish/",
        {"csrfmiddlewaretoken": browser.cookies["csrftoken"]},
    )


HTMX = {"HX-Request": "true", "HX-Current-URL": "http://127.0.0.1/"}


def summarize(timings: dict[str, list[float]]) -> dict[str, Any]:
    def quantile(values: list[float], q: float) -> float:
        return statistics.quantiles(values, n=100)[q - 1] if len(values) > 1 else values[0]

    answer, ping = timings["answer"], timings["ping"]
    return {
        "answers": len(answer),
        "answer_median_ms": statistics.median(answer),
        "answer_p90_ms": quantile(answer, 90),
        "ping_median_ms": statistics.median(ping),
        "ping_p90_ms": quantile(ping, 90),
        "ratio_answer_to_ping": statistics.median(answer) / statistics.median(ping),
        "median_paired_ratio": statistics.median(a / p for a, p in zip(answer, ping, strict=True)),
        "answer_server_cpu_ms": timings["cpu_ms_per_request"]["answer"],
        "ping_server_cpu_ms": timings["cpu_ms_per_request"]["ping"],
    }


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    with running_site() as site:
        use_site_database(site)
        timings = measure(site, args.answers)
    summary = summarize(timings)
    print(f"quiz answer round trip over {summary['answers']} answers (htmx POST, graded, card + progress back):")
    print(f"  answer   median {summary['answer_median_ms']:7.2f} ms   p90 {summary['answer_p90_ms']:7.2f} ms")
    print(f"  /ping    median {summary['ping_median_ms']:7.2f} ms   p90 {summary['ping_p90_ms']:7.2f} ms")
    print(
        f"  ratio answer / ping (medians) {summary['ratio_answer_to_ping']:.2f}; "
        f"median of paired ratios {summary['median_paired_ratio']:.2f}"
    )
    print(
        f"  web server CPU per request: answer {summary['answer_server_cpu_ms']:.2f} ms, "
        f"/ping {summary['ping_server_cpu_ms']:.2f} ms"
    )
    if args.json:
        args.json.write_text(
            json.dumps({"machine": machine_description(), "summary": summary, "timings": timings}, indent=2)
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
