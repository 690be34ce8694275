"""`manage.py export_qrels COLLECTION [-o FILE] [--format trec|jsonl|csv] [--source consensus|assessor|all] …`"""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from evaluation.exports.qrels import FORMATS, SOURCES, qrels_export
from evaluation.management.commands._exporting import write_export
from judging.management.commands._importing import collection_named


class Command(BaseCommand):
    help = (
        "Exports qrels: the consensus (what the stored metrics were computed from; trec_eval reads it as is), one "
        "assessor's labels or every assessor's, optionally binarised and for some topics. With -o FILE the "
        "provenance (qrels version, settings) goes to FILE.provenance.json."
    )

    def add_arguments(self, parser):
        parser.add_argument("collection", help="the collection's name or id")
        parser.add_argument("-o", "--output", help="file to write (default: stdout)")
        parser.add_argument("--format", choices=list(FORMATS), default="trec")
        parser.add_argument("--source", choices=SOURCES, default="consensus")
        parser.add_argument("--assessor", help="username, with --source assessor")
        parser.add_argument("--binarise-at", type=int, metavar="GRADE", help="grades >= GRADE become 1, others 0")
        parser.add_argument("--topics", nargs="+", metavar="NUMBER", help="only these topics")

    def handle(self, *args, **options):
        collection = collection_named(options["collection"])
        try:
            _, meta, lines = qrels_export(
                collection=collection,
                fmt=options["format"],
                source=options["source"],
                assessor=options["assessor"],
                topics=options["topics"],
                binarise_at=options["binarise_at"],
            )
        except ValueError as error:
            raise CommandError(str(error)) from error
        write_export(self, lines, meta, options["output"], unit="line")
