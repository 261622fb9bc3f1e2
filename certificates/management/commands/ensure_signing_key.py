from django.conf import settings
from django.core.management.base import BaseCommand

from certificates.keys import ensure_signing_key, key_dir


class Command(BaseCommand):
    help = (
        "Creates the key that signs certificates (RSA for RS256 or Ed25519 for EdDSA, as CERT_SIGNING_ALGORITHM "
        "says), unless the active key is already of that kind (safe to run again)."
    )

    def handle(self, *args, **options) -> None:
        thumbprint, created = ensure_signing_key()
        state = "created" if created else "already present"
        algorithm = settings.CERT_SIGNING_ALGORITHM
        self.stdout.write(self.style.SUCCESS(f"{algorithm} signing key {thumbprint} {state} in {key_dir()}"))
