"""`manage.py import_qrels COLLECTION QRELS...`: import TREC qrels as judgments, all or nothing."""

from django.contrib.auth import get_user_model
from django.core.management.base import CommandError

from judging.imports.services import qrels_import
from judging.management.commands._importing import ImportCommand, collection_named


class Command(ImportCommand):
    help = "Imports TREC qrels (qid 0 docno grade [assessor]) as judgments; changed topics are recomputed."

    def add_arguments(self, parser):
        super().add_arguments(parser)
        parser.add_argument(
            "--assessor", help="whose judgments lines without an assessor column are (default: imported)"
        )
        parser.add_argument(
            "--map-assessor",
            action="append",
            default=[],
            metavar="NAME=USERNAME",
            help="write NAME's judgments under the existing account USERNAME (otherwise under qrels:NAME)",
        )

    def handle(self, *args, collection, files, skip_invalid, assessor, map_assessor, **options):
        target = collection_named(collection)
        mapping = {}
        for pair in map_assessor:
            name, _, username = pair.partition("=")
            user = get_user_model().objects.filter(username=username).first()
            if not name or user is None:
                raise CommandError(f"--map-assessor {pair!r}: give NAME=USERNAME with an existing USERNAME")
            mapping[name] = user
        for path in files:
            with self.progress_bar(f"qrels {path}") as progress:
                self.run_import(
                    lambda path=path, progress=progress: qrels_import(
                        collection=target,
                        path=path,
                        assessor=assessor,
                        assessor_map=mapping,
                        skip_invalid=skip_invalid,
                        progress=progress,
                    )
                )
