from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class LabsConfig(AppConfig):
    name = "labs"
    verbose_name = _("Labs")

    def ready(self) -> None:
        # labs sits above accounts and course: they offer the extension points, labs fills them.
        from accounts.dashboard import register_section
        from accounts.learner_versions import bump_when_changed
        from course.figures import register_figure_provider

        from .explorable_figures import dashboard_predictions, explorable_figures
        from .models import FigurePrediction
        from .selectors import dashboard_context

        bump_when_changed(FigurePrediction, "predictions")

        register_figure_provider(explorable_figures)  # draws the reference figures, explorable
        # The runs' statuses and progress change with every write of a worker: rendered each time (one query).
        register_section("labs", template="labs/_dashboard.html", context=dashboard_context, order=40)
        register_section(
            "predictions",
            template="labs/_predictions.html",
            context=dashboard_predictions,
            order=45,
            shows=("predictions",),
        )
