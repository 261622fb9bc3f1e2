from django.core.management.base import BaseCommand

from certificates.keys import rotate_signing_key


class Command(BaseCommand):
    help = "Signs new certificates with a fresh key; the old key stays published in the JWKS as retired."

    def handle(self, *args, **options) -> None:
        kid, retired = rotate_signing_key()
        self.stdout.write(self.style.SUCCESS(f"New signing key {kid}; retired {retired or 'none'} (still published)"))
