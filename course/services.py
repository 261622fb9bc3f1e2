"""Course workflows: syncing content into the database, narration, newsletter."""

import logging
from pathlib import Path

from django.conf import settings
from django.core import signing
from django.core.mail import EmailMultiAlternatives
from django.db import transaction
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone, translation

from . import narration
from .content import load_all_guides
from .glosses import Glosses, load_glosses, page_hash
from .models import Guide, GuidePage, Subscriber
from .page_cache import pages_changed
from .rendering import render_markdown

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
    source_hash = page_hash(source.source_hash, glosses)  # a changed gloss renders the page again
    if page and page.source_hash == source_hash:
        return "unchanged"
    rendered = render_markdown(source.body, glosses)
    page = page or GuidePage(guide=guide, language=language)
    page.title = str(source.meta["title"])
    page.summary = str(source.meta["summary"])
    page.lab_try = str(source.meta.get("lab_try") or "")
    page.prerequisites = source.prerequisites
    page.objectives = [{"id": oid, "text": text} for oid, text in source.objectives.items()]
    page.body_markdown = source.body
    page.body_html = rendered.html
    page.toc = rendered.toc
    page.plain_text = rendered.plain_text
    page.word_count = rendered.word_count
    page.reading_minutes = rendered.reading_minutes
    page.source_hash = source_hash
    created = page.pk is None
    page.save()
    return "created" if created else "updated"


def narration_text(page: GuidePage) -> str:
    return f"{page.title}.\n{page.summary}\n{page.plain_text}"


def narration_needed(page: GuidePage, force: bool = False) -> str | None:
    """The file name the page's current text needs, or None when that file is already in place."""
    filename = narration.narration_filename(page.guide.slug, page.language, narration_text(page))
    present = page.narration_file == filename and (settings.NARRATION_DIR / filename).exists()
    return filename if force or not present or page.narration_seconds <= 0 else None


def narration_record(page: GuidePage, filename: str, seconds: float) -> None:
    old = page.narration_file
    GuidePage.objects.filter(pk=page.pk).update(narration_file=filename, narration_seconds=seconds)
    page.narration_file, page.narration_seconds = filename, seconds
    pages_changed()  # QuerySet.update sends no signal
    if old and old != filename:
        (settings.NARRATION_DIR / old).unlink(missing_ok=True)


def narration_generate(*, page: GuidePage, force: bool = False) -> bool:
    """Makes sure the page has narration for its current text. Returns True when it synthesized."""
    filename = narration_needed(page, force)
    if filename is None:
        return False
    seconds = narration.synthesize(narration_text(page), page.language, settings.NARRATION_DIR / filename)
    narration_record(page, filename, seconds)
    return True


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
