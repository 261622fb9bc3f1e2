from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class AccountsConfig(AppConfig):
    name = "accounts"
    verbose_name = _("Accounts")

    def ready(self) -> None:
        from . import throttle  # noqa: F401  (connects the receiver that logs failed log-ins)
        from .dashboard import register_section
        from .learner_versions import bump_when_changed
        from .models import ApiToken, Profile
        from .selectors import greeting_context, tokens_context

        bump_when_changed(Profile, "profile")
        bump_when_changed(ApiToken, "tokens")

        register_section(
            "greeting", template="accounts/_greeting.html", context=greeting_context, order=0, shows=("profile",)
        )
        # Its forms carry the request's CSRF token: the tokens are cached, the HTML made per request.
        register_section(
            "tokens",
            template="accounts/_tokens.html",
            context=tokens_context,
            order=90,
            shows=("tokens",),
            cache="context",
        )
