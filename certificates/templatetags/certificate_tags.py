"""The certificate section of the final exam's result page, so that quizzes need not know certificates."""

from django import template

from accounts.services import profile_for

from ..selectors import exam_certificate

register = template.Library()


@register.inclusion_tag("certificates/_claim.html", takes_context=True)
def certificate_claim(context: template.Context, attempt) -> dict:
    """Open the certificate, or sign in, add a name, or claim it: whichever the learner needs next."""
    request = context["request"]
    user = request.user
    return {
        "request": request,
        "user": user,
        "attempt": attempt,
        "certificate": exam_certificate(attempt),
        "certificate_name": profile_for(user).full_name if user.is_authenticated else "",
    }
