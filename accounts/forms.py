from django import forms
from django.contrib.auth.forms import UserCreationForm
from django.contrib.auth.models import User
from django.utils.translation import gettext_lazy as _


class SignUpForm(UserCreationForm):
    full_name = forms.CharField(
        label=_("Full name"),
        max_length=120,
        help_text=_("As it should appear on your certificate."),
    )
    email = forms.EmailField(label=_("Email"), help_text=_("Used only to reset your password."))

    class Meta(UserCreationForm.Meta):
        model = User
        fields = ("username", "email")

    def clean_email(self) -> str:
        email = self.cleaned_data["email"].lower()
        if User.objects.filter(email__iexact=email).exists():
            raise forms.ValidationError(_("An account with this email already exists. Try logging in."))
        return email


class ProfileForm(forms.Form):
    full_name = forms.CharField(
        label=_("Full name"), max_length=120, help_text=_("As it should appear on your certificate.")
    )


class ApiTokenForm(forms.Form):
    name = forms.CharField(label=_("Token name"), max_length=60, help_text=_("For example: my laptop"))
