from django import forms
from django.utils.translation import gettext_lazy as _


class NewsletterForm(forms.Form):
    email = forms.EmailField(
        label=_("Email address"),
        max_length=254,
        error_messages={"invalid": _("Please enter a valid email address, like name@example.com.")},
    )
