"""`manage.py import_documents COLLECTION FILE...`: import documents, all or nothing, with a progress bar."""

from judging.imports.services import documents_import
from judging.management.commands._importing import FileImportCommand


class Command(FileImportCommand):
    help = "Imports documents into a collection: JSONL, TREC SGML or TSV, streamed."
    kind = "documents"
    formats = ("jsonl", "trec", "tsv")
    service = staticmethod(documents_import)
