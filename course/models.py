from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _


class Guide(models.Model):
    """A guide of the course, in every language. Rows are written by `sync_content`."""

    slug = models.SlugField(unique=True)
    order = models.PositiveIntegerField(default=0)
    lab_preset = models.SlugField(blank=True)
    related = models.JSONField(default=list, blank=True)
    is_published = models.BooleanField(default=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["order", "slug"]
        verbose_name = _("guide")
        verbose_name_plural = _("guides")

    def __str__(self) -> str:
        return self.slug


class GuidePage(models.Model):
    """One guide in one language, with its Markdown rendered once at sync time."""

    guide = models.ForeignKey(Guide, on_delete=models.CASCADE, related_name="pages")
    language = models.CharField(max_length=8, choices=settings.LANGUAGES)
    title = models.CharField(max_length=300)
    summary = models.TextField()
    lab_try = models.TextField(blank=True)
    # [{"text", "guide" or "url"}] and [{"id", "text"}], from the front matter (content/AUTHORING.md)
    prerequisites = models.JSONField(default=list, blank=True)
    objectives = models.JSONField(default=list, blank=True)
    body_markdown = models.TextField()
    body_html = models.TextField()
    toc = models.JSONField(default=list)
    plain_text = models.TextField()
    word_count = models.PositiveIntegerField(default=0)
    reading_minutes = models.PositiveIntegerField(default=1)
    source_hash = models.CharField(max_length=64)
    narration_file = models.CharField(max_length=200, blank=True)
    narration_seconds = models.FloatField(default=0)
    # [{"id": h2 id, "title": ..., "start": seconds}]: where each section starts in narration_file.
    narration_chapters = models.JSONField(default=list, blank=True)
    spoken_summary = models.TextField(blank=True)  # content/guides/<slug>/summary.<lang>.txt
    summary_audio_file = models.CharField(max_length=200, blank=True)
    summary_audio_seconds = models.FloatField(default=0)

    class Meta:
        unique_together = [("guide", "language")]
        ordering = ["guide__order", "language"]

    def __str__(self) -> str:
        return f"{self.guide.slug} ({self.language})"

    @property
    def narration_url(self) -> str:
        return f"{settings.MEDIA_URL}narration/{self.narration_file}" if self.narration_file else ""

    @property
    def narration_chapters_url(self) -> str:
        """The WebVTT chapters track written beside the audio file."""
        return self.narration_url.removesuffix(".ogg") + ".vtt" if self.narration_file else ""

    @property
    def toc_with_chapters(self) -> list[dict]:
        """The table of contents, each h2 with `audio_start`: where the full narration reaches it (or None)."""
        starts = {chapter["id"]: chapter["start"] for chapter in self.narration_chapters}
        return [{**entry, "audio_start": starts.get(entry["id"])} for entry in self.toc]

    @property
    def summary_audio_url(self) -> str:
        return f"{settings.MEDIA_URL}narration/{self.summary_audio_file}" if self.summary_audio_file else ""


class GuideRead(models.Model):
    """A signed-in learner opened a guide (shown on the dashboard)."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="guide_reads")
    guide = models.ForeignKey(Guide, on_delete=models.CASCADE, related_name="reads")
    first_read_at = models.DateTimeField(auto_now_add=True)
    last_read_at = models.DateTimeField(auto_now=True)

    class Meta:
        unique_together = [("user", "guide")]

    def __str__(self) -> str:
        return f"{self.user} read {self.guide}"


class Subscriber(models.Model):
    """A newsletter address. Only confirmed (double opt-in) and not unsubscribed ones get mail."""

    email = models.EmailField(unique=True)
    language = models.CharField(max_length=8, choices=settings.LANGUAGES, default="en")
    created_at = models.DateTimeField(auto_now_add=True)
    confirmed_at = models.DateTimeField(null=True, blank=True)
    unsubscribed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        verbose_name = _("newsletter subscriber")

    def __str__(self) -> str:
        return self.email

    @property
    def is_active(self) -> bool:
        return self.confirmed_at is not None and self.unsubscribed_at is None
