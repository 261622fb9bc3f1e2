from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class QuizzesConfig(AppConfig):
    name = "quizzes"
    verbose_name = _("Quizzes")

    def ready(self) -> None:
        from accounts.dashboard import register_section
        from accounts.learner_versions import bump_when_changed
        from course.page_cache import content_version
        from course.progress import register_quiz_results

        from . import signals, spaced_review  # noqa: F401  (signals connects the login receiver)
        from .models import Attempt, MissedQuestion
        from .selectors import dashboard_context, guide_quiz_results

        bump_when_changed(Attempt, "quiz-results")
        bump_when_changed(MissedQuestion, "reviews")

        register_section(
            "quizzes", template="quizzes/_dashboard.html", context=dashboard_context, order=20, shows=("quiz-results",)
        )
        # Its forms carry the request's CSRF token: the cards are cached, the HTML made per request,
        # until the next question falls due. A pass opens an exam question's explanation.
        register_section(
            "review",
            template="quizzes/_review.html",
            context=spaced_review.dashboard_context,
            order=15,
            shows=("reviews", "quiz-results"),
            cache="context",
            version=content_version,  # the guides' study links
            expires=spaced_review.next_due,
        )
        register_quiz_results(guide_quiz_results)
