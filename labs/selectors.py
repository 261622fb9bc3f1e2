"""Queries for lab pages, the API and the learner dashboard. Visibility rules live here:
preset runs are public, other runs are their owner's, or anyone's who holds the share link."""

from django.db.models import QuerySet

from .models import LabRun

MAX_COMPARED = 12


def runs_of(user) -> QuerySet[LabRun]:
    return LabRun.objects.filter(user=user).order_by("-created_at", "-id")


def run_visible(*, run_id: int, user) -> LabRun | None:
    run = LabRun.objects.filter(pk=run_id).first()
    return run if run is not None and run.visible_to(user) else None


def run_owned(*, run_id: int, user) -> LabRun | None:
    if not user.is_authenticated:
        return None
    return LabRun.objects.filter(pk=run_id, user=user).first()


def run_shared(*, token: str) -> LabRun | None:
    return LabRun.objects.filter(share_token=token).first() if token else None


def runs_by_refs(*, refs: list[str], user) -> list[LabRun]:
    """Runs to compare, in the order given. A ref is a run id (public or the viewer's own run)
    or a share token; refs the viewer may not see are skipped, never revealed."""
    runs: list[LabRun] = []
    for ref in dict.fromkeys(r.strip() for r in refs if r.strip()):
        if len(runs) == MAX_COMPARED:
            break
        run = run_visible(run_id=int(ref), user=user) if ref.isdigit() and len(ref) < 19 else run_shared(token=ref)
        if run is not None and run not in runs:
            runs.append(run)
    return runs


def latest_preset_runs(*, slug: str, user=None) -> list[LabRun]:
    """The most recent learner's sweep of a preset: any learner's (preset results are public),
    or one learner's own. The site's reference sweeps are labs.reference's."""
    sweeps = LabRun.objects.filter(preset=slug, reference=False)
    if user is not None:
        sweeps = sweeps.filter(user=user)
    latest = sweeps.order_by("-created_at", "-id").first()
    if latest is None:
        return []
    if latest.sweep is None:
        return [latest]
    return list(LabRun.objects.filter(sweep=latest.sweep).order_by("preset_index", "id"))


def dashboard_context(user) -> dict:
    """Merged into the learner dashboard: their recent runs for templates/labs/_dashboard.html."""
    return {"lab_runs": list(runs_of(user)[:8])}
