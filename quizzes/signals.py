from django.contrib.auth.signals import user_logged_in
from django.dispatch import receiver

from .selectors import SESSION_KEY
from .services import attempts_claim


@receiver(user_logged_in, dispatch_uid="quizzes.claim_attempts")
def claim_attempts_on_login(sender, request, user, **kwargs) -> None:
    """Quiz attempts made before signing up or logging in, in this browser, count for the learner."""
    if request is not None and hasattr(request, "session"):
        attempts_claim(user=user, keys=request.session.get(SESSION_KEY, []))
