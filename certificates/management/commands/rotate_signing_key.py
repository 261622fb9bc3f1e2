from django.core.management.base import BaseCommand

from certificates.keys import rotate_signing_key


class Command(BaseCommand):
    help = "Signs new certificates with a fresh key (CERT_SIGNING_ALGORITHM); the old key stays published, retired."

    def handle(self, *args, **options) -> None:
        thumbprint, retired = rotate_signing_key()
        message = f"New signing key {thumbprint}; retired {retired or 'none'} (still published)"
        self.stdout.write(self.style.SUCCESS(message))
