"""Course workflows: syncing content into the database, narration, newsletter."""

import fcntl
import logging
import re
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import timedelta
from pathlib import Path

from django.conf import settings
from django.core import signing
from django.core.cache import cache
from django.core.mail import EmailMultiAlternatives
from django.db import transaction
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone, translation
from redis import RedisError

from . import narration, narration_status
from .content import load_all_guides
from .glosses import Glosses, load_glosses, page_hash
from .models import Guide, GuidePage, GuideRead, Subscriber
from .page_cache import pages_changed
from .rendering import plain_text_of, render_markdown, rendered_hash
from .typography import french_text, typeset_hash

LAST_READ_PRECISION = timedelta(minutes=1)

logger = logging.getLogger(__name__)
LANGUAGES = [code for code, _ in settings.LANGUAGES]


@transaction.atomic
def guides_sync(*, content_dir: Path | None = None) -> dict[str, int]:
    """Loads every guide file into the database; guides whose folder is gone are unpublished."""
    content_dir = content_dir or settings.CONTENT_DIR
    guides = load_all_guides(content_dir, LANGUAGES)
    glosses = {language: load_glosses(content_dir, language) for language in LANGUAGES}
    counts = {"created": 0, "updated": 0, "unchanged": 0, "unpublished": 0}
    for slug, sources in guides.items():
        meta = sources["en"].meta
        guide, _ = Guide.objects.update_or_create(
            slug=slug,
            defaults={
                "order": int(meta["order"]),
                "lab_preset": meta.get("lab_preset") or "",
                "related": list(meta.get("related") or []),
                "is_published": True,
            },
        )
        for language, source in sources.items():
            counts[_sync_page(guide, language, source, glosses[language])] += 1
    stale = Guide.objects.exclude(slug__in=guides.keys()).filter(is_published=True)
    counts["unpublished"] = stale.update(is_published=False)
    if counts["unpublished"]:
        pages_changed()  # QuerySet.update sends no signal
    return counts


def _sync_page(guide: Guide, language: str, source, glosses: Glosses) -> str:
    page = GuidePage.objects.filter(guide=guide, language=language).first()
    # A changed gloss or renderer (latex2mathml, say) renders the page again.
    source_hash = rendered_hash(page_hash(source.source_hash, glosses))
    typeset = french_text if language == "fr" else str  # French typography (course/typography.py)
    if language == "fr":
        source_hash = typeset_hash(source_hash)  # and so does a changed typography rule
    if page and page.source_hash == source_hash:
        return "unchanged"
    rendered = render_markdown(source.body, glosses, language)
    for error in rendered.formula_errors:  # shown as TeX; tests/course/test_formulas.py fails on any
        logger.warning("%s (%s): formula not set in MathML: %s", guide.slug, language, error)
    page = page or GuidePage(guide=guide, language=language)
    page.title = typeset(str(source.meta["title"]))
    page.summary = typeset(str(source.meta["summary"]))
    page.lab_try = typeset(str(source.meta.get("lab_try") or ""))
    page.prerequisites = [{**item, "text": typeset(item["text"])} for item in source.prerequisites]
    page.objectives = [{"id": oid, "text": typeset(text)} for oid, text in source.objectives.items()]
    page.body_markdown = source.body
    page.body_html = rendered.html
    page.toc = rendered.toc
    page.plain_text = rendered.plain_text
    page.word_count = rendered.word_count
    page.reading_minutes = rendered.reading_minutes
    page.spoken_summary = source.spoken_summary
    page.source_hash = source_hash
    created = page.pk is None
    page.save()
    return "created" if created else "updated"


H2_RE = re.compile(r'<h2 id="([a-z0-9-]+)"[^>]*>')


def narration_sections(page: GuidePage) -> list[dict]:
    """One chapter per h2 section: {'id', 'title', 'text'}; the first also says the page's title
    and summary. Code and formulas are left out, as in `plain_text_of`."""
    titles = {entry["id"]: entry["title"] for entry in page.toc}
    pieces = H2_RE.split(page.body_html)  # [before the first h2, id, html, id, html, ...]
    intro = f"{page.title}.\n{page.summary}\n{plain_text_of(pieces[0])}".strip()
    sections = [
        {"id": sid, "title": titles.get(sid, sid), "text": plain_text_of(f"<h2>{chunk}")}
        for sid, chunk in zip(pieces[1::2], pieces[2::2], strict=True)
    ]
    if not sections:
        return [{"id": "", "title": page.title, "text": intro}]
    sections[0]["text"] = f"{intro}\n{sections[0]['text']}"
    return sections


def narration_text(page: GuidePage) -> str:
    """Everything the full narration says, in order."""
    return "\n".join(section["text"] for section in narration_sections(page))


def summary_text(page: GuidePage) -> str:
    return f"{page.title}.\n{page.spoken_summary}" if page.spoken_summary else ""


def narration_needed(page: GuidePage, force: bool = False) -> dict[str, str]:
    """{'summary': file name, 'full': file name} for the recordings whose current file is missing."""
    slug, language = page.guide.slug, page.language
    full = narration.narration_filename(slug, language, "full", [s["text"] for s in narration_sections(page)])
    needed = {}
    if force or page.narration_file != full or not _present(full, chapters=True) or page.narration_seconds <= 0:
        needed["full"] = full
    if page.spoken_summary:
        summary = narration.narration_filename(slug, language, "summary", [summary_text(page)])
        if force or page.summary_audio_file != summary or not _present(summary):
            needed["summary"] = summary
    return needed


def _present(filename: str, chapters: bool = False) -> bool:
    target = settings.NARRATION_DIR / filename
    return target.exists() and (not chapters or target.with_suffix(".vtt").exists())


def narration_synthesize(page: GuidePage, kind: str, filename: str) -> dict:
    """Speaks one recording into NARRATION_DIR; returns the fields `narration_record` stores.
    Touches no database row, so generate_narration runs it in threads."""
    target = settings.NARRATION_DIR / filename
    if kind == "summary":
        return {
            "summary_audio_file": filename,
            "summary_audio_seconds": narration.synthesize(summary_text(page), page.language, target),
        }
    sections = narration_sections(page)
    marks = narration.synthesize_chapters([s["text"] for s in sections], page.language, target)
    chapters = [
        {"id": s["id"], "title": s["title"], "start": round(m, 1)} for s, m in zip(sections, marks, strict=False)
    ]
    narration.write_chapters_vtt(chapters, marks[-1], target.with_suffix(".vtt"))
    return {"narration_file": filename, "narration_seconds": marks[-1], "narration_chapters": chapters}


def narration_record(page: GuidePage, filename: str, seconds: float, chapters: list[dict] | None = None) -> None:
    """Stores the full narration's file, duration and chapters and retires the file it replaces."""
    narration_store(
        page, {"narration_file": filename, "narration_seconds": seconds, "narration_chapters": chapters or []}
    )


def narration_store(page: GuidePage, fields: dict) -> None:
    retired = [getattr(page, name) for name in ("narration_file", "summary_audio_file") if name in fields]
    GuidePage.objects.filter(pk=page.pk).update(**fields)
    for name, value in fields.items():
        setattr(page, name, value)
    pages_changed()  # QuerySet.update sends no signal
    for old in retired:
        if old and old not in (page.narration_file, page.summary_audio_file):
            (settings.NARRATION_DIR / old).unlink(missing_ok=True)
            (settings.NARRATION_DIR / old).with_suffix(".vtt").unlink(missing_ok=True)


@contextmanager
def narration_recording() -> Iterator[None]:
    """Marks the narration as being recorded for the pages (see narration_status), then waits for
    any other recording of this site to finish: one program records at a time, so `make run` and an
    operator's `manage.py generate_narration` never speak the same file twice."""
    narration_status.mark_recording(True)
    pages_changed()
    try:
        with open(settings.STATE_DIR / "narration.lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes, or the process dies
            yield
    finally:
        narration_status.mark_recording(False)
        pages_changed()


def narration_recorded(page: GuidePage, fields: dict) -> None:
    """Stores one finished recording and renews the recording mark for the pages still waiting."""
    narration_store(page, fields)
    narration_status.mark_recording(True)


def narration_generate(*, page: GuidePage, force: bool = False) -> bool:
    """Makes sure the page has both recordings for its current text. Returns True when it synthesized."""
    needed = narration_needed(page, force)
    for kind, filename in needed.items():
        narration_store(page, narration_synthesize(page, kind, filename))
    return bool(needed)


# Newsletter: double opt-in with signed links; addresses are never shown to anyone.
CONFIRM_SALT = "course.newsletter.confirm"
UNSUBSCRIBE_SALT = "course.newsletter.unsubscribe"
CONFIRM_MAX_AGE = 7 * 24 * 3600


def newsletter_subscribe(*, email: str, language: str) -> None:
    """Records the address and mails a confirmation link; says nothing about whether it existed."""
    subscriber, _ = Subscriber.objects.get_or_create(email=email.lower(), defaults={"language": language})
    if subscriber.is_active:
        return
    # An address that unsubscribed stays unsubscribed until its owner follows the new link.
    subscriber.language = language
    subscriber.save(update_fields=["language"])
    token = signing.dumps(subscriber.email, salt=CONFIRM_SALT)
    with translation.override(language):
        confirm_url = settings.SITE_URL + reverse("course:newsletter_confirm", args=[token])
        _send(subscriber, "course/email/newsletter_confirm", {"confirm_url": confirm_url})


def newsletter_confirm(*, token: str) -> Subscriber | None:
    try:
        email = signing.loads(token, salt=CONFIRM_SALT, max_age=CONFIRM_MAX_AGE)
    except signing.BadSignature:
        return None
    subscriber = Subscriber.objects.filter(email=email).first()
    if subscriber and not subscriber.is_active:
        subscriber.confirmed_at = timezone.now()
        subscriber.unsubscribed_at = None
        subscriber.save(update_fields=["confirmed_at", "unsubscribed_at"])
    return subscriber


def unsubscribe_url(subscriber: Subscriber) -> str:
    token = signing.dumps(subscriber.email, salt=UNSUBSCRIBE_SALT)
    with translation.override(subscriber.language):
        return settings.SITE_URL + reverse("course:newsletter_unsubscribe", args=[token])


def newsletter_unsubscribe(*, token: str) -> Subscriber | None:
    try:
        email = signing.loads(token, salt=UNSUBSCRIBE_SALT)
    except signing.BadSignature:
        return None
    subscriber = Subscriber.objects.filter(email=email).first()
    if subscriber and subscriber.unsubscribed_at is None:
        subscriber.unsubscribed_at = timezone.now()
        subscriber.save(update_fields=["unsubscribed_at"])
    return subscriber


def newsletter_send(*, subject: str, body: str, language: str) -> int:
    """Sends one issue to the confirmed subscribers of a language, each with a one-click unsubscribe."""
    sent = 0
    for subscriber in Subscriber.objects.filter(language=language, confirmed_at__isnull=False, unsubscribed_at=None):
        _send(subscriber, "course/email/newsletter_issue", {"subject": subject, "body": body})
        sent += 1
    return sent


def _send(subscriber: Subscriber, template: str, context: dict) -> None:
    link = unsubscribe_url(subscriber)
    with translation.override(subscriber.language):
        context = {**context, "unsubscribe_url": link}
        subject = render_to_string(f"{template}_subject.txt", context).strip()
        text = render_to_string(f"{template}.txt", context)
    message = EmailMultiAlternatives(
        subject,
        text,
        to=[subscriber.email],
        headers={"List-Unsubscribe": f"<{link}>", "List-Unsubscribe-Post": "List-Unsubscribe=One-Click"},
    )
    message.send()


def guide_read(*, user, guide: Guide) -> None:
    """Notes that the learner opened the guide (the dashboard's "last read"). A read within a minute of
    the last one is not written again, nor read: the time last noted is in the cache framework too,
    so paging through a guide costs one cache read, not a SELECT (nor a write) each time."""
    noted_key = f"learner:{user.pk}:guide-read:{guide.pk}"
    try:
        noted = cache.get(noted_key)
    except RedisError:
        noted = None
    if noted is not None and timezone.now() - noted < LAST_READ_PRECISION:
        return
    read, created = GuideRead.objects.get_or_create(user=user, guide=guide)
    if not created and timezone.now() - read.last_read_at >= LAST_READ_PRECISION:
        read.save(update_fields=["last_read_at"])  # auto_now: the time of this read
    try:
        cache.set(noted_key, read.last_read_at, int(LAST_READ_PRECISION.total_seconds()))
    except RedisError:
        pass  # the next read asks the database
