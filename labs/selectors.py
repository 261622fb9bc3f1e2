"""Queries for lab pages, the API and the dashboard, and where a run stands in the queue. Visibility:
preset runs are public, other runs are their owner's, or anyone's who holds the share link."""

import statistics
from dataclasses import dataclass
from itertools import islice

from django.db.models import Q, QuerySet, Subquery, prefetch_related_objects
from django.utils import timezone

from .models import LabRun
from .workers import Worker, connected_workers

MAX_COMPARED = 12
RECENT_RUNS = 20  # finished runs the estimate is the median of
CURVE_PAGE_DEFAULT = 1000  # points per page of a curve (the API's `limit`)
CURVE_PAGE_MAX = 5000


def runs_of(user) -> QuerySet[LabRun]:
    return LabRun.objects.filter(user=user).order_by("-created_at", "-id")


# What a list of runs never shows: the curves and results, whose JSON grows with the runs' steps.
LISTED_RUN_UNUSED = ("curve", "validation", "metrics")


def recent_runs_of(user) -> list[LabRun]:  # listed on the lab pages; none for a visitor
    return list(runs_of(user).defer(*LISTED_RUN_UNUSED)[:20]) if user.is_authenticated else []


def run_visible(*, run_id: int, user) -> LabRun | None:
    run = LabRun.objects.filter(pk=run_id).first()
    return run if run is not None and run.visible_to(user) else None


def curve_page(run: LabRun, *, after: int, limit: int) -> tuple[list[dict], int | None]:
    """Up to `limit` points after step `after`, and the next page's `after` (None: no more stored yet)."""
    points = _points_after(run, after, limit + 1)
    if points is None:  # the worker finished between the two reads: the curve is one document now
        run.refresh_from_db(fields=["curve", "done_steps"])
        points = _points_after(run, after, limit + 1) or []
    page = points[:limit]
    return page, (page[-1]["step"] if len(points) > limit else None)


def _points_after(run: LabRun, after: int, count: int) -> list[dict] | None:
    """None when the run's chunks vanished since `run` was read (its worker finished or a claim restarted it)."""
    if not run.curve_is_chunked:
        return list(islice((point for point in run.curve if point["step"] > after), count))
    # Every chunk holds a point at least: `count` chunks are enough.
    chunks = list(run.curve_chunks.filter(last_step__gt=after).order_by("seq").values_list("points", flat=True)[:count])
    if not chunks and run.done_steps > after:
        return None
    return list(islice((point for points in chunks for point in points if point["step"] > after), count))


def run_owned(*, run_id: int, user) -> LabRun | None:
    return LabRun.objects.filter(pk=run_id, user=user).first()


def run_shared(*, token: str) -> LabRun | None:
    return LabRun.objects.filter(share_token=token).first() if token else None


MAX_REFS = 100  # refs read from one comparison's URL: the query's IN lists stay short


def runs_by_refs(*, refs: list[str], user) -> list[LabRun]:
    """Runs to compare, in the order given, in one query: run ids (public or the viewer's) or share
    tokens; refs the viewer may not see are skipped, never revealed."""
    wanted = list(dict.fromkeys(r.strip() for r in refs if r.strip()))[:MAX_REFS]
    ids = {int(ref) for ref in wanted if is_id(ref)}
    tokens = {ref for ref in wanted if not is_id(ref)}
    found = list(LabRun.objects.filter(Q(pk__in=ids) | Q(share_token__in=tokens))) if wanted else []
    by_id = {run.pk: run for run in found if run.visible_to(user)}
    by_token = {run.share_token: run for run in found}
    runs: list[LabRun] = []
    for ref in wanted:
        run = by_id.get(int(ref)) if is_id(ref) else by_token.get(ref)
        if run is not None and run not in runs:
            runs.append(run)
    return with_chunks(runs[:MAX_COMPARED])


def with_chunks(runs: list[LabRun]) -> list[LabRun]:
    """`runs`, with the curve chunks of those still training read in one query (the charts read twice)."""
    prefetch_related_objects([run for run in runs if run.curve_is_chunked], "curve_chunks")
    return runs


def is_id(text: str) -> bool:
    """A whole number a database id can be: str.isdigit() alone takes "²", which int() refuses."""
    return text.isascii() and text.isdigit() and len(text) < 19


def latest_preset_runs(*, slug: str, user) -> list[LabRun]:
    """The viewer's most recent sweep of a preset (not a reference sweep: labs.reference)."""
    if not user.is_authenticated:
        return []
    # One query: the latest run, and the runs of its sweep when it has one (`sweep = NULL` matches none).
    mine = LabRun.objects.filter(preset=slug, reference=False, user=user).order_by("-created_at", "-id")
    latest = Q(pk=Subquery(mine.values("pk")[:1])) | Q(sweep=Subquery(mine.values("sweep")[:1]))
    return with_chunks(list(LabRun.objects.filter(latest).order_by("preset_index", "id")))


def dashboard_context(user) -> dict:  # templates/labs/_dashboard.html's
    return {"lab_runs": list(runs_of(user).defer(*LISTED_RUN_UNUSED)[:8])}


@dataclass(frozen=True)
class QueueState:
    workers: list[Worker]
    waiting: int  # queued runs


def queue_state() -> QueueState:
    return QueueState(workers=connected_workers(), waiting=LabRun.objects.filter(status=LabRun.Status.QUEUED).count())


def _ahead(run: LabRun) -> Q:
    """The runs a worker takes before this one: in submission order, learners' before reference runs."""
    earlier = Q(created_at__lt=run.created_at) | Q(created_at=run.created_at, pk__lt=run.pk)
    ahead = Q(reference=run.reference) & earlier
    if run.reference:
        ahead |= Q(reference=False)
    return ahead


def queue_position(run: LabRun) -> int | None:  # 1 for the next run a worker takes
    if run.status != LabRun.Status.QUEUED:
        return None
    return LabRun.objects.filter(_ahead(run), status=LabRun.Status.QUEUED).count() + 1


def trainings_until(run: LabRun) -> int:
    """The trainings before this queued run is done, itself included: one per fingerprint among the
    runs ahead, as a run whose twin finished or trains copies its result (a room running one preset)."""
    trained = LabRun.objects.filter(
        status__in=[LabRun.Status.SUCCEEDED, LabRun.Status.RUNNING], reused_from__isnull=True
    ).values("fingerprint")
    waiting = LabRun.objects.filter(_ahead(run) | Q(pk=run.pk), status=LabRun.Status.QUEUED)
    return waiting.exclude(fingerprint__in=Subquery(trained)).values("fingerprint").distinct().count()


def typical_run_seconds() -> float | None:
    """Median time from claim to finish of recent runs that really trained (not reused results)."""
    recent = (
        LabRun.objects.filter(status=LabRun.Status.SUCCEEDED, reused_from__isnull=True)
        .exclude(started_at=None)
        .exclude(finished_at=None)
        .order_by("-finished_at")
        .values_list("started_at", "finished_at")[:RECENT_RUNS]
    )
    seconds = [(finished - started).total_seconds() for started, finished in recent]
    return statistics.median(seconds) if seconds else None


def estimate_seconds(run: LabRun, *, workers: int) -> float | None:
    """Seconds until a queued run should be done: what is left of the runs in training and a typical
    run's time for each training until this one's, shared among the workers; None without one."""
    if run.status != LabRun.Status.QUEUED or not workers:
        return None
    typical = typical_run_seconds()
    if typical is None:
        return None
    now = timezone.now()
    training = LabRun.objects.filter(status=LabRun.Status.RUNNING).exclude(started_at=None)
    started = training.values_list("started_at", flat=True)
    in_training = sum(max(0.0, typical - (now - at).total_seconds()) for at in started)
    return (in_training + typical * trainings_until(run)) / workers


def run_queue(run: LabRun, state: QueueState | None = None) -> dict:  # the API's `queue` block of a run
    state = state or queue_state()
    position = queue_position(run)
    return {
        "position": position,
        "waiting": state.waiting,
        "workers_connected": len(state.workers),
        "estimate_seconds": estimate_seconds(run, workers=len(state.workers)),
    }
