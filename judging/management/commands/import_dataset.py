"""`manage.py import_dataset COLLECTION ID [--documents none|pooled|all] [--download]`: a standard collection by its
ir_datasets id (`irds:` prefix or none): topics, qrels as an imported source, documents as asked. Offline unless
--download (or WORKBENCH_DATASETS_DOWNLOAD) allows ir_datasets to fetch what is missing."""

from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError

from judging.datasets.services import DOCUMENT_CHOICES, dataset_import
from judging.imports.core.problems import ImportFailed
from judging.management.commands._importing import ImportCommand, collection_named


class Command(BaseCommand):
    help = __doc__

    def add_arguments(self, parser):
        parser.add_argument("collection", help="the collection's name or id")
        parser.add_argument("dataset", help="an ir_datasets id, e.g. irds:msmarco-passage/trec-dl-2019/judged")
        parser.add_argument("--documents", choices=DOCUMENT_CHOICES, default="none")
        parser.add_argument("--download", action="store_true", help="let ir_datasets download what is missing")

    def handle(self, *args, collection, dataset, documents, download, **options):
        target = collection_named(collection)
        with ImportCommand.progress_bar(self, f"documents of {dataset}") as progress:
            try:
                result = dataset_import(collection=target, dataset=dataset, documents=documents,
                                        allow_download=download or None, progress=progress)  # fmt: skip
            except ValidationError as refused:
                raise CommandError("; ".join(refused.messages)) from None
            except ImportFailed as failure:
                raise CommandError(str(failure)) from None
        parts = [f"{part} {result[part]['created']} new" for part in ("topics", "qrels", "documents") if part in result]
        self.stdout.write(self.style.SUCCESS(f"{result['dataset']}: " + ", ".join(parts)))
