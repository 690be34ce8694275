"""`manage.py import_runs COLLECTION RUN...`: import TREC run files, all or nothing, with a progress bar."""

from judging.imports.services import runs_import
from judging.management.commands._importing import ImportCommand, collection_named


class Command(ImportCommand):
    help = "Imports TREC run files (qid Q0 docno rank score tag) into a collection."

    def add_arguments(self, parser):
        super().add_arguments(parser)
        parser.add_argument("--precedence", type=int, default=1, help="judging precedence for pooling (1 first)")
        parser.add_argument(
            "--model-family", default="", help="the model family the runs use (e.g. gpt-4o): circularity checks"
        )

    def handle(self, *args, collection, files, skip_invalid, precedence, model_family, **options):
        target = collection_named(collection)
        with self.progress_bar(f"runs ({len(files)} files)") as progress:
            self.run_import(
                lambda: runs_import(
                    collection=target,
                    paths=files,
                    skip_invalid=skip_invalid,
                    progress=progress,
                    precedence=precedence,
                    model_family=model_family,
                )
            )
