"""Quiz answer round trip: the htmx POST of one answer, through gunicorn, next to the minimal view.

Starts a throw-away copy of the site (bench/harness.py, production settings, gunicorn with 2 sync
workers, loopback only). A learner's browser (one client with its cookies) takes the first
guide's quiz again and again; each answer is posted as htmx does (HX-Request, X-CSRFToken) and
graded by the server, which answers with the question's card and the progress line. Right
before or after each answer (alternately) the same client fetches the minimal view `/ping`.
Both are timed from connecting to reading the whole answer; the medians and their ratio are
reported, with the web server's CPU time per request (its processes' user + system time from /proc
around each request: it counts the work, not the waiting for a core of a busy machine).

    .venv/bin/python bench/quiz_roundtrip.py [--answers 100] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
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


def measure(site: Site, answers: int) -> dict[str, list[float]]:
    from seed import correct_form

    browser = Browser(site.url)
    for _ in range(20):  # warm-up: both workers loaded
        browser.get("/ping")
    timings: dict[str, list[float]] = {"answer": [], "ping": []}
    cpu = {"answer": 0.0, "ping": 0.0}  # the web server's CPU seconds, summed (/proc counts in ticks)
    while len(timings["answer"]) < answers:
        attempt = start_attempt(browser, site)
        for number in range(1, attempt.total + 1):
            if len(timings["answer"]) == answers:
                break
            path = f"/en/quizzes/{attempt.quiz.slug}/attempts/{attempt.key}/questions/{number}/"
            form = correct_form(attempt, number)
            order = ("ping", "answer") if len(timings["answer"]) % 2 == 0 else ("answer", "ping")  # alternate
            for name in order:
                before = cpu_seconds(site.web_pid)
                reply = browser.get("/ping") if name == "ping" else browser.post_form(path, form, HTMX)
                cpu[name] += cpu_seconds(site.web_pid) - before
                if reply.status != 200:
                    raise RuntimeError(f"{name} answered {reply.status}: {reply.body[:300]!r}")
                timings[name].append(reply.seconds * 1000)
        browser.post_form(
            f"/en/quizzes/{attempt.quiz.slug}/attempts/{attempt.key}/finish/",
            {"csrfmiddlewaretoken": browser.cookies["csrftoken"]},
        )
    timings["cpu_ms_per_request"] = {name: cpu[name] * 1000 / answers for name in cpu}
    return timings


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
