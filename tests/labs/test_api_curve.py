"""GET /api/labs/runs/{id}/curve: a run's curve page by page, finished or still appending chunks."""

import pytest

from accounts.models import ApiToken
from labs.models import LabRun, LabRunCurveChunk
from labs.selectors import CURVE_PAGE_MAX, curve_page


def point(step):
    return {"step": step, "loss": 1.0 / step, "grad_norm": 0.5, "lr": 0.05, "samples": 16 * step, "seconds": step}


@pytest.fixture
def finished(learner, make_run):
    return make_run(learner, status=LabRun.Status.SUCCEEDED, config={"steps": 25}, preset="memory-vs-n")


@pytest.fixture
def running(learner, make_run):
    """A run whose worker appended steps 1-3, 4 and 5-7 so far."""
    run = make_run(learner, status=LabRun.Status.RUNNING, config={"steps": 20}, done_steps=7, preset="memory-vs-n")
    for seq, steps in enumerate(([1, 2, 3], [4], [5, 6, 7])):
        LabRunCurveChunk.objects.create(run=run, seq=seq, last_step=steps[-1], points=[point(s) for s in steps])
    return run


def steps(body):
    return [p["step"] for p in body["points"]]


def test_a_finished_curve_comes_page_by_page_with_a_cursor(client, finished):
    url = f"/api/labs/runs/{finished.pk}/curve"
    first = client.get(url, {"limit": 10}).json()
    assert steps(first) == list(range(1, 11)) and first["next"] == 10
    assert first["points"][0] == finished.curve[0]  # every stored key, and only those
    second = client.get(url, {"after": first["next"], "limit": 10}).json()
    assert steps(second) == list(range(11, 21)) and second["next"] == 20
    last = client.get(url, {"after": second["next"], "limit": 10}).json()
    assert steps(last) == list(range(21, 26)) and last["next"] is None
    assert (last["status"], last["done_steps"], last["total_steps"]) == ("succeeded", 25, 25)
    whole = client.get(url).json()  # the default page holds a short curve whole
    assert steps(whole) == list(range(1, 26)) and whole["next"] is None


def test_a_running_curve_pages_through_its_chunks(client, running):
    url = f"/api/labs/runs/{running.pk}/curve"
    assert steps(client.get(url, {"after": 2, "limit": 3}).json()) == [3, 4, 5]
    page = client.get(url, {"after": 5, "limit": 2}).json()
    assert steps(page) == [6, 7] and page["next"] is None  # all that is stored yet
    assert (page["status"], page["done_steps"]) == ("running", 7)
    assert client.get(url, {"after": 7}).json()["points"] == []


def test_a_page_read_while_the_worker_stores_the_whole_curve_comes_from_that_curve(running):
    stale = LabRun.objects.get(pk=running.pk)  # read while the points were in chunks
    LabRun.objects.filter(pk=running.pk).update(status=LabRun.Status.SUCCEEDED, curve=[point(s) for s in range(1, 9)])
    LabRunCurveChunk.objects.filter(run=running).delete()
    points, next_after = curve_page(stale, after=6, limit=5)
    assert [p["step"] for p in points] == [7, 8] and next_after is None


@pytest.mark.parametrize(
    ("query", "fields"),
    [
        ({"after": "-1"}, {"after"}),
        ({"after": "two"}, {"after"}),
        ({"limit": "0"}, {"limit"}),
        ({"limit": str(CURVE_PAGE_MAX + 1)}, {"limit"}),
        ({"limit": "1.5", "after": ""}, {"after", "limit"}),
    ],
)
def test_a_bad_page_is_a_400_that_says_what_to_correct(client, finished, query, fields):
    response = client.get(f"/api/labs/runs/{finished.pk}/curve", query)
    assert response.status_code == 400
    body = response.json()
    assert body["error"] == "This page of the curve cannot be given."
    assert {entry["field"] for entry in body["fields"]} == fields
    if "limit" in fields:
        assert f"from 1 to {CURVE_PAGE_MAX}" in next(e["message"] for e in body["fields"] if e["field"] == "limit")


def test_a_bad_page_is_explained_in_the_readers_language(client, finished):
    response = client.get(f"/api/labs/runs/{finished.pk}/curve", {"limit": "0"}, headers={"Accept-Language": "fr"})
    assert response.status_code == 400 and "courbe" in response.json()["error"]
    response = client.get(f"/api/labs/runs/{finished.pk}/curve", {"after": "x"}, headers={"Accept-Language": "hi"})
    assert response.status_code == 400 and "पेज" in response.json()["error"]


def test_a_private_curve_is_its_owners_alone(client, learner, other_learner, make_run):
    private = make_run(learner, status=LabRun.Status.SUCCEEDED)
    url = f"/api/labs/runs/{private.pk}/curve"
    assert client.get(url).status_code == 404  # as the run itself: not even said to exist
    _token, raw = ApiToken.issue(user=other_learner, name="script")
    assert client.get(url, headers={"Authorization": f"Bearer {raw}"}).status_code == 404
    _token, raw = ApiToken.issue(user=learner, name="script")
    body = client.get(url, headers={"Authorization": f"Bearer {raw}"}).json()
    assert steps(body) == [1, 2, 3]
    assert client.get(f"/api/labs/runs/{private.pk + 1000}/curve").status_code == 404


def test_the_run_detail_shows_a_running_runs_points_so_far(client, running):
    body = client.get(f"/api/labs/runs/{running.pk}").json()
    assert [p["step"] for p in body["curve"]] == [1, 2, 3, 4, 5, 6, 7]


def test_the_curve_endpoint_is_in_the_openapi_document(client, db):
    paths = client.get("/api/openapi.json").json()["paths"]
    operation = paths["/api/labs/runs/{run_id}/curve"]["get"]
    assert {p["name"] for p in operation["parameters"]} == {"run_id", "after", "limit"}
    assert {"200", "400", "404"} <= set(operation["responses"])
