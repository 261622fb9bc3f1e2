from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from . import services
from .models import FigurePrediction, LabRun


@admin.register(LabRun)
class LabRunAdmin(admin.ModelAdmin):
    list_display = ["id", "user", "label", "status", "done_steps", "total_steps", "attempts", "device",
                    "created_at", "heartbeat_at", "finished_at"]  # fmt: skip
    list_filter = ["status", "preset"]
    search_fields = ["user__username", "preset", "worker", "fingerprint"]
    raw_id_fields = ["user", "reused_from"]
    readonly_fields = ["curve", "validation", "metrics", "fingerprint", "code_version", "share_token", "created_at"]
    actions = ["cancel_runs", "requeue_runs"]
    date_hierarchy = "created_at"

    @admin.action(description=_("Cancel the selected runs"))
    def cancel_runs(self, request: HttpRequest, queryset: QuerySet[LabRun]) -> None:
        count = sum(services.lab_run_cancel(run=run) for run in queryset)
        message = ngettext("%(n)d run cancelled.", "%(n)d runs cancelled.", count)
        self.message_user(request, message % {"n": count}, messages.SUCCESS)

    @admin.action(description=_("Requeue the selected runs (start again from scratch)"))
    def requeue_runs(self, request: HttpRequest, queryset: QuerySet[LabRun]) -> None:
        count = sum(services.lab_run_requeue(run=run) for run in queryset)
        message = ngettext("%(n)d run requeued.", "%(n)d runs requeued.", count)
        self.message_user(request, message % {"n": count}, messages.SUCCESS)


@admin.register(FigurePrediction)
class FigurePredictionAdmin(admin.ModelAdmin):
    list_display = ["user", "preset", "figure", "predicted", "answer", "updated_at"]
    list_filter = ["preset", "figure"]
    search_fields = ["user__username", "preset"]
    raw_id_fields = ["user"]
