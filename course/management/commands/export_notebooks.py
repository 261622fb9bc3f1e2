from pathlib import Path

import nbformat
from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from course.notebooks import guide_notebook, notebook_filename
from course.selectors import published_pages


class Command(BaseCommand):
    help = (
        "Writes every published guide page's notebook into a folder, as <slug>.<language>.ipynb (the "
        "download's name): commit them under NOTEBOOK_REPOSITORY_PATH of NOTEBOOK_REPOSITORY_URL so that "
        "the guides' 'Open in Colab' buttons find them. Run it after sync_content, with the site's SITE_URL."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument("folder", type=Path, help="where to write the notebooks (created if missing)")

    def handle(self, *args, folder: Path, **options) -> None:
        pages = [page for code, _name in settings.LANGUAGES for page in published_pages(code)]
        if not pages:
            raise CommandError("No published guide: run manage.py sync_content first.")
        folder.mkdir(parents=True, exist_ok=True)
        for page in pages:
            nbformat.write(guide_notebook(page), folder / notebook_filename(page))
        self.stdout.write(self.style.SUCCESS(f"Notebooks: {len(pages)} written to {folder}"))
