"""Certificate pages: the claim after a passed exam, verification (anyone, also by a typed ID), PDF, the
picture a shared link shows, and the learner's one name correction."""

import re
import unicodedata
from urllib.parse import quote, urlencode

from django import forms
from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from accounts.forms import validate_printable_name
from accounts.services import profile_for
from config.formats import month_names
from config.ratelimit import rate_limit
from course.page_cache import public_page
from quizzes.models import Attempt
from quizzes.selectors import result_url

from . import credentials, services
from .models import Certificate, group_certificate_id, normalize_certificate_id
from .og_image import og_image
from .pdf import certificate_pdf


class NameForm(forms.Form):
    full_name = forms.CharField(
        label=gettext_lazy("Full name"),
        max_length=services.NAME_MAX_LENGTH,
        help_text=gettext_lazy("Exactly as it should appear on your certificate."),
        validators=[validate_printable_name],
    )


NOT_AN_ID = gettext_lazy(
    "This is not a certificate ID. An ID has 32 characters, the letters A to Z and the digits 2 to 7, "
    "printed in eight groups of four such as ABCD-EFGH-2345-…"
)


class LookupForm(forms.Form):
    """The ID printed on a certificate, typed in any case, with or without its dashes."""

    id = forms.CharField(
        label=gettext_lazy("Certificate ID"),
        max_length=100,
        widget=forms.TextInput(attrs={"autocomplete": "off", "spellcheck": "false", "autocapitalize": "characters"}),
        help_text=gettext_lazy("Printed on the certificate, under “Verify this certificate”."),
    )

    def clean_id(self) -> str:
        compact = normalize_certificate_id(self.cleaned_data["id"])
        if compact is None:
            raise forms.ValidationError(NOT_AN_ID)
        return compact


def _certificate(certificate_id: str) -> Certificate | None:
    compact = normalize_certificate_id(certificate_id)
    return Certificate.objects.select_related("superseded_by").filter(pk=compact).first() if compact else None


def _certificate_or_404(certificate_id: str) -> Certificate:
    """Malformed and never-issued IDs look the same from outside: not found."""
    certificate = _certificate(certificate_id)
    if certificate is None:
        raise Http404
    return certificate


def _linkedin_url(certificate: Certificate, url: str) -> str:
    query = {
        "startTask": "CERTIFICATION_NAME",
        "name": credentials.COURSE_NAME,
        "organizationName": settings.CERT_ISSUER_NAME,
        "issueYear": certificate.issued_at.year,
        "issueMonth": certificate.issued_at.month,
        "certUrl": url,
        "certId": certificate.display_id,
    }
    return "https://www.linkedin.com/profile/add?" + urlencode(query)


@login_required
@require_POST
@rate_limit("certificate_claim", key="user")
def claim(request: HttpRequest, slug: str, key: str) -> HttpResponse:
    """Issues the certificate for a passed final exam from its result page (services.certificate_issue
    says who is eligible); a learner without a name on their profile is sent to add it."""
    attempt = get_object_or_404(Attempt.objects.select_related("quiz"), quiz__slug=slug, key=key, user=request.user)
    try:
        certificate = services.certificate_issue(attempt=attempt, user=request.user)
    except services.NotEligible as exc:
        messages.error(request, exc.message)
        if not profile_for(request.user).full_name.strip():
            return redirect("accounts:profile")
        return redirect(result_url(attempt))
    messages.success(request, _("Your certificate is ready."))
    return redirect("certificates:verify", certificate.display_id)


# Served from the cache to visitors without a session (course/page_cache.py), which the rate limit
# then does not count: only an ID that exists has a cached page, so a hit tells a guesser nothing.
# A change of status retires the page (services.certificate_revoke, certificate_correct_name).
@require_GET
@public_page(timeout=3600)
@rate_limit("certificate_lookup")  # one counter with the API
def verify(request: HttpRequest, certificate_id: str) -> HttpResponse:
    certificate = _certificate(certificate_id)
    if certificate is None:
        return _never_issued(request, certificate_id)
    if certificate_id != certificate.display_id:
        return redirect("certificates:verify", certificate.display_id, permanent=True)
    url = settings.SITE_URL + request.path
    image_url = settings.SITE_URL + reverse("certificates:og_image", args=[certificate.display_id])
    is_owner = request.user.is_authenticated and certificate.user_id == request.user.pk
    context = {
        "certificate": certificate,
        "url": url,
        "image_url": image_url,
        "linkedin_url": _linkedin_url(certificate, url),
        "language_name": settings.LANGUAGE_NAMES_NATIVE.get(certificate.language, certificate.language),
        "is_owner": is_owner,
        "can_correct_name": is_owner and certificate.is_valid and not services.name_correction_used(request.user),
    }
    return TemplateResponse(request, "certificates/certificate.html", context)


def _never_issued(request: HttpRequest, certificate_id: str) -> HttpResponse:
    """A 404 that says what it means: no certificate ever had this ID (a revoked one still has its
    page), with the form to type the ID again."""
    context = {
        "typed": certificate_id[:100],
        "well_formed": normalize_certificate_id(certificate_id) is not None,
        "form": LookupForm(initial={"id": certificate_id[:100]}),
    }
    return render(request, "certificates/never_issued.html", context, status=404)


def _verify_page(request: HttpRequest, form: LookupForm, status: int = 200) -> HttpResponse:
    context = {"issuer": credentials.issuer_id(), "form": form, "month_names": month_names()}
    return render(request, "certificates/verify_credential.html", context, status=status)


@require_GET
def verify_credential(request: HttpRequest) -> HttpResponse:
    """Checks a pasted credential or a dropped PDF in the visitor's browser (static/js/verify.js)
    against the published keys and status list: nothing they paste or drop is sent to us. Its
    look-up form (a GET to `lookup`) needs no JavaScript."""
    return _verify_page(request, LookupForm())


@require_GET
def lookup(request: HttpRequest) -> HttpResponse:
    """The look-up form's answer: the certificate's page for a well-formed ID (which says whether such a
    certificate was ever issued, under the page's rate limit), or the form again saying what is wrong.
    Opened with no ID at all (a bookmark, a typed address), it is the form itself."""
    if "id" not in request.GET:
        return _verify_page(request, LookupForm())
    form = LookupForm(request.GET)
    if not form.is_valid():
        return _verify_page(request, form, status=400)
    return redirect("certificates:verify", group_certificate_id(form.cleaned_data["id"]))


def _pdf_filename(certificate: Certificate) -> str:
    # Letters, marks (matras, viramas) and digits of any script stay, since the header carries UTF-8;
    # anything that could break a path or a header becomes a hyphen.
    kept = "".join(ch if unicodedata.category(ch)[0] in "LMN" else "-" for ch in certificate.name)
    name = re.sub(r"-+", "-", kept).strip("-")[:60] or "learner"
    return f"certificate-{name}-{certificate.id[:8]}.pdf"


@require_GET
@rate_limit("certificate_pdf")
def pdf(request: HttpRequest, certificate_id: str) -> HttpResponse:
    certificate = _certificate_or_404(certificate_id)
    if not certificate.is_valid:
        message = _("This certificate is no longer valid, so it cannot be downloaded. Its page shows why.")
        return render(request, "error.html", {"title": _("Certificate not valid"), "message": message}, status=410)
    body = certificate_pdf(certificate, credentials.verification_url(certificate))
    response = HttpResponse(body, content_type="application/pdf")
    filename = _pdf_filename(certificate)
    ascii_name = f"certificate-{certificate.id[:8]}.pdf"
    response["Content-Disposition"] = f"attachment; filename=\"{ascii_name}\"; filename*=UTF-8''{quote(filename)}"
    return response


@require_GET
@rate_limit("certificate_image")
def share_image(request: HttpRequest, certificate_id: str) -> HttpResponse:
    """The PNG that og:image names, for the link previews of sites the certificate is shared on."""
    certificate = _certificate_or_404(certificate_id)
    response = HttpResponse(og_image(certificate), content_type="image/png")
    response["Cache-Control"] = "public, max-age=3600"  # previews refetch; a revocation shows within the hour
    return response


@login_required
@require_http_methods(["GET", "POST"])
def correct_name(request: HttpRequest, certificate_id: str) -> HttpResponse:
    certificate = _certificate_or_404(certificate_id)
    if certificate.user_id != request.user.pk:
        raise Http404
    form = NameForm(request.POST or None, initial={"full_name": certificate.name})
    if request.method == "POST" and form.is_valid():
        try:
            replacement = services.certificate_correct_name(
                certificate=certificate, user=request.user, name=form.cleaned_data["full_name"]
            )
        except services.CertificateError as exc:
            form.add_error("full_name", exc.message)
        else:
            messages.success(request, _("Your certificate was reissued with the corrected name."))
            return redirect("certificates:verify", replacement.display_id)
    context = {"certificate": certificate, "form": form, "used": services.name_correction_used(request.user)}
    return render(request, "certificates/certificate_name.html", context, status=400 if form.errors else 200)
