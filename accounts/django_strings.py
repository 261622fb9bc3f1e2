"""Django's own strings on the account pages (sign-up, log-in, password change and reset), as Django
writes them: listed here so that makemessages keeps them in locale/, whose catalog Django reads
before its own. Django's Hindi catalog leaves several of them out and words others differently from
the site (कूटशब्द, शब्दकूट for पासवर्ड); each is translated in hi and fr (tests/accounts/test_translations.py).
"""

from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext_lazy

MIN_PASSWORD_LENGTH = 8  # MinimumLengthValidator's default, as config/settings.py uses it

FORM_LABELS_AND_HELP = (
    _("username"),  # the User model's field name: the log-in label, and %(username)s below
    _("Password"),
    _("Password confirmation"),
    _("Enter the same password as before, for verification."),
    _("Old password"),
    _("New password"),
    _("New password confirmation"),
    _("email address"),  # the password similarity check names it
    _("first name"),
    _("last name"),
)

FORM_ERRORS = (
    _("This field is required."),
    _("Enter a valid email address."),
    _("Null characters are not allowed."),
    _("A user with that username already exists."),
    _("The two password fields didn’t match."),
    _("Please enter a correct %(username)s and password. Note that both fields may be case-sensitive."),
    _("This account is inactive."),
    _("Your old password was entered incorrectly. Please enter it again."),
)

PASSWORD_RULES = (
    _("Your password can’t be too similar to your other personal information."),
    _("The password is too similar to the %(verbose_name)s."),
    _("Your password can’t be a commonly used password."),
    _("This password is too common."),
    _("Your password can’t be entirely numeric."),
    _("This password is entirely numeric."),
    ngettext_lazy(
        "Your password must contain at least %(min_length)d character.",
        "Your password must contain at least %(min_length)d characters.",
        MIN_PASSWORD_LENGTH,
    ),
    ngettext_lazy(
        "This password is too short. It must contain at least %d character.",
        "This password is too short. It must contain at least %d characters.",
        MIN_PASSWORD_LENGTH,
    ),
)

PAGE_TITLES = (  # the auth views' own titles (templates/accounts/form_page.html, message.html)
    _("Password reset"),
    _("Password reset sent"),
    _("Enter new password"),
    _("Password reset complete"),
    _("Password reset unsuccessful"),
    _("Password change"),
    _("Password change successful"),
)

ALL = (*FORM_LABELS_AND_HELP, *FORM_ERRORS, *PASSWORD_RULES, *PAGE_TITLES)
