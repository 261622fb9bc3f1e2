from django.contrib import admin
from django.core.exceptions import PermissionDenied
from django.shortcuts import get_object_or_404
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.html import format_html
from django.utils.translation import gettext_lazy as _

from .models import Attempt, Question, Quiz
from .statistics import FACILITY_RANGE, MIN_ATTEMPTS_TO_JUDGE, quiz_item_statistics


class QuestionInline(admin.TabularInline):
    model = Question
    fields = ["position", "key", "type", "is_active"]
    readonly_fields = fields
    extra = 0
    can_delete = False


@admin.register(Quiz)
class QuizAdmin(admin.ModelAdmin):
    list_display = ["slug", "is_exam", "position", "is_published", "updated_at", "statistics_link"]
    list_filter = ["is_exam", "is_published"]
    readonly_fields = ["slug", "is_exam", "guide", "title", "position", "is_published", "source_hash"]
    inlines = [QuestionInline]

    def get_urls(self):
        statistics = self.admin_site.admin_view(self.statistics_view)
        return [path("<int:quiz_id>/statistics/", statistics, name="quizzes_quiz_statistics"), *super().get_urls()]

    @admin.display(description=_("Question statistics"))
    def statistics_link(self, quiz: Quiz) -> str:
        return format_html('<a href="{}">{}</a>', reverse("admin:quizzes_quiz_statistics", args=[quiz.pk]), _("View"))

    def statistics_view(self, request, quiz_id: int):
        quiz = get_object_or_404(Quiz, pk=quiz_id)
        if not self.has_view_permission(request, quiz):
            raise PermissionDenied
        items = quiz_item_statistics(quiz)
        context = {
            **self.admin_site.each_context(request),
            "title": _("Question statistics: %(quiz)s") % {"quiz": quiz.slug},
            "opts": self.model._meta,
            "quiz": quiz,
            "items": items,
            "flagged": sum(bool(item.review_reasons) for item in items),
            "min_attempts": MIN_ATTEMPTS_TO_JUDGE,
            "facility_low": FACILITY_RANGE[0],
            "facility_high": FACILITY_RANGE[1],
        }
        return TemplateResponse(request, "quizzes/admin_statistics.html", context)


@admin.register(Attempt)
class AttemptAdmin(admin.ModelAdmin):
    list_display = ["quiz", "user", "language", "started_at", "finished_at", "correct_count", "passed"]
    list_filter = ["quiz", "passed", "language"]
    search_fields = ["user__username"]
    readonly_fields = [f.name for f in Attempt._meta.fields]
