from django.contrib.auth.models import User
from django.db import transaction

from .models import Profile


@transaction.atomic
def account_create(*, username: str, email: str, password: str, full_name: str, language: str) -> User:
    user = User.objects.create_user(username=username, email=email, password=password)
    Profile.objects.create(user=user, full_name=full_name.strip(), language=language)
    return user


def profile_for(user: User) -> Profile:
    profile, _ = Profile.objects.get_or_create(user=user)
    return profile
