from django.conf import settings
from django.core.management.base import BaseCommand

from certificates.keys import ensure_signing_key


class Command(BaseCommand):
    help = "Creates the Ed25519 key that signs certificates, unless one exists (safe to run again)."

    def handle(self, *args, **options) -> None:
        kid, created = ensure_signing_key()
        state = "created" if created else "already present"
        self.stdout.write(self.style.SUCCESS(f"Signing key {kid} {state} in {settings.CERT_KEY_DIR}"))
