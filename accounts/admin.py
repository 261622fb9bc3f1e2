from django.contrib import admin

from .models import ApiToken, Profile


@admin.register(Profile)
class ProfileAdmin(admin.ModelAdmin):
    list_display = ["user", "full_name", "language"]
    search_fields = ["user__username", "full_name"]


@admin.register(ApiToken)
class ApiTokenAdmin(admin.ModelAdmin):
    list_display = ["user", "name", "prefix", "created_at", "last_used_at"]
    readonly_fields = ["prefix", "digest"]
