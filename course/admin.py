from django.contrib import admin

from .models import Guide, GuidePage, GuideRead, Subscriber


class GuidePageInline(admin.TabularInline):
    model = GuidePage
    fields = ["language", "title", "word_count", "reading_minutes", "narration_seconds"]
    readonly_fields = fields
    extra = 0
    can_delete = False


@admin.register(Guide)
class GuideAdmin(admin.ModelAdmin):
    list_display = ["slug", "order", "lab_preset", "is_published", "updated_at"]
    list_filter = ["is_published"]
    inlines = [GuidePageInline]


@admin.register(GuideRead)
class GuideReadAdmin(admin.ModelAdmin):
    list_display = ["user", "guide", "first_read_at", "last_read_at"]


@admin.register(Subscriber)
class SubscriberAdmin(admin.ModelAdmin):
    list_display = ["email", "language", "created_at", "confirmed_at", "unsubscribed_at"]
    list_filter = ["language"]
    search_fields = ["email"]
