from django.core.management.base import BaseCommand, CommandError

from certificates import identifiers, revocation_list, status_list
from certificates.models import Certificate, normalize_certificate_id
from certificates.services import certificate_revoke


class Command(BaseCommand):
    help = (
        "Revokes a certificate; the reason is shown publicly on its verification page, its bit in the "
        "signed status list reads revoked and the 1EdTech revocation list names its credential from now on."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument("certificate_id", help="the ID as printed (dashes and case do not matter)")
        parser.add_argument("--reason", required=True, help="why, in words a reader of the page understands")

    def handle(self, *args, certificate_id: str, reason: str, **options) -> None:
        if not reason.strip():
            raise CommandError("--reason must not be empty")
        compact = normalize_certificate_id(certificate_id)
        certificate = Certificate.objects.filter(pk=compact).first() if compact else None
        if certificate is None:
            raise CommandError(f"No certificate with ID {certificate_id!r}")
        if not certificate_revoke(certificate=certificate, reason=reason):
            self.stdout.write(f"{certificate.display_id} was already revoked on {certificate.revoked_at:%Y-%m-%d}")
            return
        self.stdout.write(self.style.SUCCESS(f"Revoked {certificate.display_id}: {reason.strip()}"))
        if certificate.status_slot is not None:
            entry = status_list.entry(certificate)
            where = f"{entry['statusListCredential']}, index {entry['statusListIndex']}"
            listed = f"{revocation_list.entry(certificate)['id']}, as {identifiers.credential_uri(certificate)}"
            self.stdout.write(f"Status list: {where} (verifiers see it within {status_list.MAX_AGE} s)")
            self.stdout.write(f"1EdTech revocation list: {listed}")
        else:
            self.stdout.write("Issued before status lists: its credential carries no status; the API reports it.")
