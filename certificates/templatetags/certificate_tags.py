"""The certificate section of the final exam's result page, so that quizzes need not know certificates,
and the SITE_URL warning on the admin's pages."""

from django import template

from accounts.services import profile_for
from config.site_url import staff_warning

from ..selectors import exam_certificate
from ..services import REVOCATION_STANDS, revocation_stands

register = template.Library()


@register.inclusion_tag("certificates/_claim.html", takes_context=True)
def certificate_claim(context: template.Context, attempt) -> dict:
    """Open the certificate, or sign in, add a name, or claim it: whichever the learner needs next."""
    request = context["request"]
    user = request.user
    certificate = exam_certificate(attempt)
    return {
        "request": request,
        "user": user,
        "attempt": attempt,
        "certificate": certificate,
        "certificate_name": profile_for(user).full_name if user.is_authenticated else "",
        "refused": REVOCATION_STANDS if certificate is None and revocation_stands(attempt) else "",
    }


@register.simple_tag(takes_context=True)
def site_url_staff_warning(context: template.Context) -> str:
    """On the admin's pages: the warning when staff reach the site elsewhere than SITE_URL."""
    request = context.get("request")
    return staff_warning(request) if request is not None else ""
