from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class LabsConfig(AppConfig):
    name = "labs"
    verbose_name = _("Labs")

    def ready(self) -> None:
        # labs sits above course: course offers the extension point, labs fills it.
        from course.figures import register_figure_provider

        from .guide_figures import reference_figures

        register_figure_provider(reference_figures)
