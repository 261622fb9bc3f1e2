from django.conf import settings
from django.contrib.auth.models import User
from django.core.mail import send_mail
from django.db import transaction
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import translation

from .models import Profile


@transaction.atomic
def account_create(*, username: str, email: str, password: str, full_name: str, language: str) -> User:
    user = User.objects.create_user(username=username, email=email, password=password)
    Profile.objects.create(user=user, full_name=full_name.strip(), language=language)
    return user


def profile_for(user: User) -> Profile:
    profile, _ = Profile.objects.get_or_create(user=user)
    return profile


def account_sign_up(*, username: str, email: str, password: str, full_name: str, language: str) -> User:
    """A new account, whose owner then gets an e-mail, so that the sign-up never tells whether an
    address is registered (Django's password-reset habit): a free address is the account's, with a
    welcome; an address another account holds stays with that account, the new one is made without
    any, and the holder is told someone used it, with links to log in or reset the password. The
    person signing up sees the same page either way."""
    holder = User.objects.filter(email__iexact=email).select_related("profile").first()
    user = account_create(
        username=username, email="" if holder else email, password=password, full_name=full_name, language=language
    )
    if holder:
        owner_language = getattr(getattr(holder, "profile", None), "language", language)
        transaction.on_commit(lambda: _mail(holder.email, "accounts/email/address_in_use", owner_language, holder))
    else:
        transaction.on_commit(lambda: _mail(email, "accounts/email/welcome", language, user))
    return user


def _mail(address: str, template: str, language: str, user: User) -> None:
    with translation.override(language):
        context = {
            "username": user.get_username(),
            "login_url": settings.SITE_URL + reverse("accounts:login"),
            "password_reset_url": settings.SITE_URL + reverse("accounts:password_reset"),
            "dashboard_url": settings.SITE_URL + reverse("accounts:dashboard"),
        }
        subject = render_to_string(f"{template}_subject.txt", context).strip()
        body = render_to_string(f"{template}.txt", context)
    send_mail(subject, body, None, [address])
