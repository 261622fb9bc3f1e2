import unicodedata

from django import forms
from django.contrib.auth.forms import UserCreationForm
from django.contrib.auth.models import User
from django.utils.translation import gettext_lazy as _

# The joiners shape Devanagari, Arabic and Persian names; every other format character is
# invisible, and the bidi controls among them can reorder how a name reads on the certificate.
ALLOWED_FORMAT_CHARACTERS = {"\u200c", "\u200d"}


def validate_printable_name(name: str) -> None:
    """Refuses control characters (line breaks, tabs...) and invisible format characters such as
    the right-to-left override, which would let a name print differently from how it reads."""
    for char in name:
        category = unicodedata.category(char)
        hidden = category == "Cf" and char not in ALLOWED_FORMAT_CHARACTERS
        if category in ("Cc", "Cs", "Co", "Cn", "Zl", "Zp") or hidden:
            raise forms.ValidationError(
                _(
                    "Your name contains an invisible or control character, such as a line break or a "
                    "text-direction mark. Please type it again without it."
                ),
                code="unprintable",
            )


def full_name_field() -> forms.CharField:
    return forms.CharField(
        label=_("Full name"),
        max_length=120,
        help_text=_("As it should appear on your certificate."),
        validators=[validate_printable_name],
    )


class SignUpForm(UserCreationForm):
    full_name = full_name_field()
    email = forms.EmailField(label=_("Email"), help_text=_("Used only to reset your password."))

    class Meta(UserCreationForm.Meta):
        model = User
        fields = ("username", "email")

    def clean_email(self) -> str:
        # A registered address is not refused here: that would tell anyone who holds an account
        # (accounts.services.account_sign_up tells the holder instead).
        return self.cleaned_data["email"].lower()


class ProfileForm(forms.Form):
    full_name = full_name_field()


class ApiTokenForm(forms.Form):
    name = forms.CharField(label=_("Token name"), max_length=60, help_text=_("For example: my laptop"))
