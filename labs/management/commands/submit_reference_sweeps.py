"""Submit the reference sweeps that are missing or outdated (labs/reference.py): the run command's
`references` program, once after start-up (`--if-enabled`). Only rows are written here, so a broker
that is not up yet is fine (the dispatcher sends them later).
"""

from django.conf import settings
from django.core.management.base import BaseCommand

from labs.reference import reference_sweeps_submit_missing


class Command(BaseCommand):
    help = "Submit a reference sweep for every preset that has none for its current settings and training code."

    def add_arguments(self, parser) -> None:
        parser.add_argument("--force", action="store_true", help="Submit every preset again, even if current.")
        parser.add_argument(
            "--if-enabled", action="store_true", help="Do nothing when LAB_REFERENCE_SWEEPS is false (the run command)."
        )

    def handle(self, *args, force: bool = False, if_enabled: bool = False, **options) -> None:
        if if_enabled and not settings.LAB_REFERENCE_SWEEPS:
            self.stdout.write("Reference sweeps are turned off (LAB_REFERENCE_SWEEPS=false).")
            return
        submitted = reference_sweeps_submit_missing(force=force)
        if submitted:
            self.stdout.write(f"Reference sweeps submitted: {', '.join(submitted)}.")
        else:
            self.stdout.write("Every preset has a current reference sweep.")
