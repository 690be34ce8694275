"""`manage.py import_qrels COLLECTION QRELS...`: import TREC qrels as judgments, all or nothing."""

from judging.importers.services import qrels_import

from ._importing import ImportCommand, collection_named


class Command(ImportCommand):
    help = "Imports TREC qrels (qid 0 docno grade [assessor]) as judgments; changed topics are recomputed."

    def add_arguments(self, parser):
        super().add_arguments(parser)
        parser.add_argument(
            "--assessor", help="whose judgments lines without an assessor column are (default: imported)"
        )

    def handle(self, *args, collection, files, skip_invalid, assessor, **options):
        target = collection_named(collection)
        for path in files:
            with self.progress_bar(f"qrels {path}") as progress:
                self.run_import(
                    lambda path=path, progress=progress: qrels_import(
                        collection=target, path=path, assessor=assessor, skip_invalid=skip_invalid, progress=progress
                    )
                )
