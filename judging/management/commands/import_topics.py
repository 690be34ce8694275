"""`manage.py import_topics COLLECTION FILE...`: import topics, all or nothing, with a progress bar."""

from judging.imports.services import topics_import
from judging.management.commands._importing import FileImportCommand


class Command(FileImportCommand):
    help = "Imports topics into a collection: TREC topic files, TSV (id<TAB>text) or JSONL."
    kind = "topics"
    formats = ("trec", "tsv", "jsonl")
    service = staticmethod(topics_import)
