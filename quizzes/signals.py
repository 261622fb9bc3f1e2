from django.contrib.auth.signals import user_logged_in
from django.db.models.signals import post_delete
from django.dispatch import receiver

from course.page_cache import forget_page

from .models import Certificate
from .selectors import SESSION_KEY
from .services import attempts_claim


@receiver(user_logged_in, dispatch_uid="quizzes.claim_attempts")
def claim_attempts_on_login(sender, request, user, **kwargs) -> None:
    """Quiz attempts made before signing up or logging in, in this browser, count for the learner."""
    if request is not None and hasattr(request, "session"):
        attempts_claim(user=user, keys=request.session.get(SESSION_KEY, []))


@receiver(post_delete, sender=Certificate, dispatch_uid="quizzes.forget_certificate_page")
def forget_deleted_certificate_page(sender, instance: Certificate, **kwargs) -> None:
    """A deleted certificate (its learner closed the account) must not live on in the page cache."""
    forget_page("certificates:verify", instance.display_id)
