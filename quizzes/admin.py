from django.contrib import admin

from .models import Attempt, Question, Quiz


class QuestionInline(admin.TabularInline):
    model = Question
    fields = ["position", "key", "type", "is_active"]
    readonly_fields = fields
    extra = 0
    can_delete = False


@admin.register(Quiz)
class QuizAdmin(admin.ModelAdmin):
    list_display = ["slug", "is_exam", "position", "is_published", "updated_at"]
    list_filter = ["is_exam", "is_published"]
    readonly_fields = ["slug", "is_exam", "guide", "title", "position", "is_published", "source_hash"]
    inlines = [QuestionInline]


@admin.register(Attempt)
class AttemptAdmin(admin.ModelAdmin):
    list_display = ["quiz", "user", "language", "started_at", "finished_at", "correct_count", "passed"]
    list_filter = ["quiz", "passed", "language"]
    search_fields = ["user__username"]
    readonly_fields = [f.name for f in Attempt._meta.fields]
