"""Reference sweeps: every preset trained by the site's own workers (at a lower priority than
learners' runs), public to everyone: an ordinary sweep that belongs to no learner.

A sweep is current when its runs have the fingerprints the preset has now, which include the
training code's version (labs/training/version.py): a change to that code outdates every sweep and
the `submit_reference_sweeps` command (run after start-up) trains them again. Until the new sweep
has finished, pages show the last complete one, with the code version it came from.
"""

import logging
from collections.abc import Callable
from contextlib import suppress
from dataclasses import dataclass
from datetime import datetime
from typing import TypeVar

from django.core.cache import cache
from django.db import transaction
from redis import RedisError

from labs.training import config as training_config  # CODE_VERSION read at call time

from .models import LabRun
from .presets import PRESETS, Preset
from .services import finished_originals, lab_runs_store, preset_run_configs, run_fingerprint

logger = logging.getLogger(__name__)

INDEX_KEY = "labs:reference-index"
INDEX_TIMEOUT = 300  # seconds; a finished sweep deletes the key at once (reference_run_finished)
T = TypeVar("T")


@dataclass(frozen=True)
class ReferenceSweep:  # the complete reference results of one preset
    preset: Preset
    sweep: str  # the sweep's id: what cached figures are keyed by
    runs: list[LabRun]

    @property
    def finished_at(self) -> datetime:
        return max(run.finished_at for run in self.runs)

    @property
    def code_version(self) -> str:
        return self.runs[0].code_version

    @property
    def devices(self) -> str:
        return ", ".join(dict.fromkeys(run.device for run in self.runs if run.device)) or "—"

    @property
    def is_current(self) -> bool:
        return self.code_version == training_config.CODE_VERSION


def preset_fingerprints(preset: Preset) -> list[str]:
    return [run_fingerprint(config) for config in preset_run_configs(preset)]


def reference_sweep_outdated(preset: Preset) -> bool:
    """No reference sweep of the preset as it is now (settings and code) is done or on its way."""
    wanted = preset_fingerprints(preset)
    latest = LabRun.objects.filter(reference=True, preset=preset.slug).order_by("-created_at", "-id").first()
    if latest is None:
        return True
    runs = list(LabRun.objects.filter(reference=True, sweep=latest.sweep).order_by("preset_index"))
    usable = (LabRun.Status.QUEUED, LabRun.Status.RUNNING, LabRun.Status.SUCCEEDED)
    return [run.fingerprint for run in runs] != wanted or any(run.status not in usable for run in runs)


@transaction.atomic
def reference_sweep_submit(*, preset: Preset) -> list[LabRun]:
    """Stores the preset's runs as one site-owned sweep (reusing any trained result) and queues the rest."""
    configs = preset_run_configs(preset)
    fingerprints = [run_fingerprint(config) for config in configs]
    finished = finished_originals(fingerprints)
    runs = lab_runs_store(configs, fingerprints, finished, reference=True, user=None, preset=preset.slug)
    if all(run.status == LabRun.Status.SUCCEEDED for run in runs):
        transaction.on_commit(reference_results_changed)
    return runs


def reference_sweeps_submit_missing(*, force: bool = False) -> list[str]:
    """Submits a reference sweep for every outdated preset (all with `force`); returns their slugs."""
    submitted = []
    for preset in PRESETS.values():
        if force or reference_sweep_outdated(preset):
            reference_sweep_submit(preset=preset)
            submitted.append(preset.slug)
    return submitted


def reference_sweep_latest(slug: str) -> ReferenceSweep | None:
    """The most recent reference sweep of a preset whose every run succeeded (from reference_index)."""
    preset, sweep = PRESETS.get(slug), reference_index().get(slug)
    if preset is None or sweep is None:
        return None
    runs = list(LabRun.objects.filter(reference=True, sweep=sweep).order_by("preset_index", "id"))
    return ReferenceSweep(preset=preset, sweep=str(sweep), runs=runs) if runs else None


def cached(key: str, build: Callable[[], T], timeout: int) -> T:
    """What `build` returns, kept in the cache; built every time while Redis is away."""
    with suppress(RedisError):
        if (found := cache.get(key)) is not None:
            return found
    value = build()
    with suppress(RedisError):
        cache.set(key, value, timeout)
    return value


def reference_index() -> dict[str, str]:
    """{preset slug: id of its latest complete reference sweep}, cached: figures are cached under these
    ids, and the guide pages' content hash includes this index."""
    return cached(INDEX_KEY, _complete_sweeps, INDEX_TIMEOUT)


def _complete_sweeps() -> dict[str, str]:
    incomplete = set(
        LabRun.objects.filter(reference=True).exclude(status=LabRun.Status.SUCCEEDED).values_list("sweep", flat=True)
    )
    found: dict[str, str] = {}
    rows = LabRun.objects.filter(reference=True, status=LabRun.Status.SUCCEEDED).order_by("-created_at", "-id")
    for slug, sweep in rows.values_list("preset", "sweep"):
        if sweep not in incomplete:
            found.setdefault(slug, str(sweep))
    return found


def reference_run_finished(run: LabRun) -> None:
    """Once a reference run's whole sweep has succeeded, its figures and guide pages are drawn again."""
    if not LabRun.objects.filter(sweep=run.sweep, reference=True).exclude(status=LabRun.Status.SUCCEEDED).exists():
        reference_results_changed()


def reference_results_changed() -> None:
    from course.page_cache import pages_changed  # labs sits above course: it may call down

    try:
        cache.delete(INDEX_KEY)
    except RedisError as exc:
        logger.warning("the reference index could not be forgotten (INDEX_TIMEOUT bounds it): %s", exc)
    pages_changed()  # guide pages show the figures: render them again
