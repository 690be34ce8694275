"""`manage.py import_documents COLLECTION FILE...`: import documents, all or nothing, with a progress bar."""

from judging.importers.services import documents_import

from ._importing import ImportCommand, collection_named


class Command(ImportCommand):
    help = "Imports documents into a collection (format guessed from the content unless --format is given)."

    def add_arguments(self, parser):
        super().add_arguments(parser)
        parser.add_argument("--format", choices=["trec", "tsv", "jsonl"], help="the file format")

    def handle(self, *args, collection, files, skip_invalid, format, **options):
        target = collection_named(collection)
        for path in files:
            with self.progress_bar(f"documents {path}") as progress:
                self.run_import(
                    lambda path=path, progress=progress: documents_import(
                        collection=target, path=path, format=format, skip_invalid=skip_invalid, progress=progress
                    )
                )
