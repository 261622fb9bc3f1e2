import unicodedata

from django import forms
from django.contrib.auth.forms import UserCreationForm, UsernameField
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


USERNAME_SYMBOLS = set("@.+-_")


def validate_username(name: str) -> None:
    """Letters and digits of any script with the marks that complete them, and @ . + - _. Django's
    own check (\\w) leaves out combining marks (Devanagari vowel signs, virama), so it refuses most
    Hindi names, आशा among them; the joiners and every other invisible character stay refused."""
    starts_with_mark = unicodedata.category(name[:1] or "a").startswith("M")
    allowed = all(unicodedata.category(char)[0] in "LMN" or char in USERNAME_SYMBOLS for char in name)
    if starts_with_mark or not allowed:
        raise forms.ValidationError(
            _("Enter a valid username. This value may contain only letters, numbers, and @/./+/-/_ characters."),
            code="invalid",
        )


def full_name_field() -> forms.CharField:
    return forms.CharField(
        label=_("Full name"),
        max_length=120,
        help_text=_("As it should appear on your certificate."),
        validators=[validate_printable_name],
    )


class SignUpForm(UserCreationForm):
    # Declared here, outside Meta.fields, so that the User model's own username check does not run.
    username = UsernameField(
        label=_("Username"),
        max_length=150,
        help_text=_("Required. 150 characters or fewer. Letters, digits and @/./+/-/_ only."),
        validators=[validate_username],
    )
    full_name = full_name_field()
    email = forms.EmailField(label=_("Email"), help_text=_("Used only to reset your password."))
    field_order = ("username", "email", "password1", "password2", "full_name")

    class Meta(UserCreationForm.Meta):
        model = User
        fields = ("email",)

    def clean_username(self) -> str | None:
        username = super().clean_username()  # refuses a name taken in any case
        self.instance.username = username or ""  # the password must not resemble it
        return username

    def clean_email(self) -> str:
        # A registered address is not refused here: that would tell anyone who holds an account
        # (accounts.services.account_sign_up tells the holder instead).
        return self.cleaned_data["email"].lower()


class ProfileForm(forms.Form):
    full_name = full_name_field()


class ApiTokenForm(forms.Form):
    name = forms.CharField(label=_("Token name"), max_length=60, help_text=_("For example: my laptop"))
