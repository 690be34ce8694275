"""`manage.py import_documents COLLECTION FILE...`: import documents, all or nothing, with a progress bar."""

from judging.imports.services import documents_import
from judging.management.commands._importing import FileImportCommand


class Command(FileImportCommand):
    help = "Imports documents into a collection: JSONL, TREC SGML or TSV, streamed."
    kind = "documents"
    formats = ("jsonl", "trec", "tsv")
    service = staticmethod(documents_import)

    def add_arguments(self, parser):
        super().add_arguments(parser)
        parser.add_argument("--pooled-only", action="store_true", help="keep only the documents the pools hold")
        parser.add_argument("--top-k", type=int, help="with --pooled-only: also those some run ranks in a top k")

    def handle(self, *args, pooled_only=False, top_k=None, **options):
        if pooled_only:
            self.service = staticmethod(lambda **kw: documents_import(**kw, pooled_only=True, top_k=top_k))
        super().handle(*args, **options)
