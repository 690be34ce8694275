"""What the import commands share: finding the collection, a byte-based progress bar, and reporting problems."""

from __future__ import annotations

from contextlib import contextmanager

from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from judging import selectors
from judging.imports.core.problems import ImportFailed
from judging.models import Collection


def collection_named(name_or_id: str) -> Collection:
    found = selectors.collection_by_name_or_id(name_or_id)
    if found is None:
        raise CommandError(f"no collection named or numbered {name_or_id!r}")
    return found


class ImportCommand(BaseCommand):
    """An import command: `COLLECTION FILE...`, `--skip-invalid`, a progress bar on stderr, exit status 1 with
    every problem listed (file:line: field: reason) when the file is refused."""

    kind = ""

    def add_arguments(self, parser):
        parser.add_argument("collection", help="the collection's name or id")
        parser.add_argument("files", nargs="+", help="the file(s) to import")
        parser.add_argument(
            "--skip-invalid", action="store_true", help="import the valid lines and report the invalid ones"
        )

    @contextmanager
    def progress_bar(self, description: str):
        with tqdm(desc=description, unit="B", unit_scale=True, file=self.stderr, mininterval=0.2) as bar:

            def progress(done: int, total: int) -> None:
                bar.total = total
                bar.update(done - bar.n)

            yield progress

    def run_import(self, action) -> None:
        try:
            report = action()
        except ImportFailed as failure:
            raise CommandError(str(failure)) from None
        for problem in report.skipped:
            self.stderr.write(f"skipped {problem}")
        if report.skipped_count > len(report.skipped):
            self.stderr.write(f"... and {report.skipped_count - len(report.skipped)} more skipped")
        self.stdout.write(self.style.SUCCESS(str(report)))


class FileImportCommand(ImportCommand):
    """An import of one kind of file at a time, through `service(collection=, path=, format=, ...)`."""

    formats: tuple[str, ...] = ()

    @staticmethod
    def service(**options):
        raise NotImplementedError

    def add_arguments(self, parser):
        super().add_arguments(parser)
        parser.add_argument("--format", choices=self.formats, help="the file format (default: guessed)")

    def handle(self, *args, collection, files, skip_invalid, format, **options):
        target = collection_named(collection)
        for path in files:
            with self.progress_bar(f"{self.kind} {path}") as progress:
                self.run_import(
                    lambda path=path, progress=progress: self.service(
                        collection=target, path=path, format=format, skip_invalid=skip_invalid, progress=progress
                    )
                )
