from django import forms
from django.contrib import admin, messages
from django.template.response import TemplateResponse
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from . import services
from .models import Certificate


class RevokeForm(forms.Form):
    reason = forms.CharField(
        label=_("Reason"),
        widget=forms.Textarea(attrs={"rows": 3}),
        help_text=_("Shown publicly on the verification page."),
    )


@admin.register(Certificate)
class CertificateAdmin(admin.ModelAdmin):
    list_display = ["display_id", "name", "language", "score_band", "issued_at", "status"]
    list_filter = ["language", "revoked_at", "is_name_correction"]
    search_fields = ["id", "name", "user__username"]
    readonly_fields = [f.name for f in Certificate._meta.fields]
    actions = ["revoke", "reissue"]

    def has_add_permission(self, request) -> bool:
        return False  # certificates come only from passed exams

    @admin.action(description=_("Revoke the selected certificates"), permissions=["change"])
    def revoke(self, request, queryset):
        form = RevokeForm(request.POST if "reason" in request.POST else None)
        if form.is_valid():
            revoked = sum(
                services.certificate_revoke(certificate=c, reason=form.cleaned_data["reason"]) for c in queryset
            )
            message = ngettext("%(count)d certificate revoked.", "%(count)d certificates revoked.", revoked)
            self.message_user(request, message % {"count": revoked}, messages.SUCCESS)
            return None
        context = {
            **self.admin_site.each_context(request),
            "title": _("Revoke certificates"),
            "form": form,
            "certificates": queryset,
            "opts": self.model._meta,
            "action_checkbox_name": admin.helpers.ACTION_CHECKBOX_NAME,
        }
        return TemplateResponse(request, "certificates/admin_revoke.html", context)

    @admin.action(description=_("Issue the selected revoked certificates again"), permissions=["change"])
    def reissue(self, request, queryset):
        """Takes a revocation back: a new certificate each (services.certificate_reissue says when not)."""
        issued = 0
        for certificate in queryset:
            try:
                services.certificate_reissue(certificate=certificate)
            except services.CertificateError as exc:
                self.message_user(request, exc.message, messages.WARNING)
            else:
                issued += 1
        message = ngettext("%(count)d certificate issued again.", "%(count)d certificates issued again.", issued)
        self.message_user(request, message % {"count": issued}, messages.SUCCESS if issued else messages.INFO)
