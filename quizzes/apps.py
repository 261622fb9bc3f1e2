from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class QuizzesConfig(AppConfig):
    name = "quizzes"
    verbose_name = _("Quizzes")

    def ready(self) -> None:
        from . import signals  # noqa: F401  (connects the login receiver)
