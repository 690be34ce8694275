"""`manage.py export_results COLLECTION [-o FILE] [--format trec|csv|json] [--runs TAG …]`"""

from __future__ import annotations

from django.core.management.base import BaseCommand

from evaluation.exports.results import FORMATS, results_export
from evaluation.management.commands._exporting import write_export
from judging.management.commands._importing import collection_named


class Command(BaseCommand):
    help = (
        "Exports the stored per-topic values and aggregates of every run (or --runs): trec_eval -q text, CSV or "
        "JSON. With -o FILE the provenance (qrels version, settings, freshness) goes to FILE.provenance.json."
    )

    def add_arguments(self, parser):
        parser.add_argument("collection", help="the collection's name or id")
        parser.add_argument("-o", "--output", help="file to write (default: stdout)")
        parser.add_argument("--format", choices=list(FORMATS), default="trec")
        parser.add_argument("--runs", nargs="+", metavar="TAG")

    def handle(self, *args, **options):
        collection = collection_named(options["collection"])
        _, meta, lines = results_export(collection=collection, fmt=options["format"], runs=options["runs"])
        write_export(self, lines, meta, options["output"], unit="line")
