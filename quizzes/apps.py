from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class QuizzesConfig(AppConfig):
    name = "quizzes"
    verbose_name = _("Quizzes")

    def ready(self) -> None:
        from accounts.dashboard import register_section
        from course.progress import register_quiz_results

        from . import signals, spaced_review  # noqa: F401  (signals connects the login receiver)
        from .selectors import dashboard_context, guide_quiz_results

        register_section("quizzes", template="quizzes/_dashboard.html", context=dashboard_context, order=20)
        register_section("review", template="quizzes/_review.html", context=spaced_review.dashboard_context, order=15)
        register_quiz_results(guide_quiz_results)
