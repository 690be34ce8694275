"""`manage.py build_pool COLLECTION --strategy depth --depth 100` (or sampled with --depth K; take_n / rrf / mtf with
--budget N)."""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from judging import selectors
from judging.management.commands._importing import collection_named
from judging.ordering.core import pool_strategies
from judging.services.pools import pool_build


class Command(BaseCommand):
    help = (
        "Adds documents to each topic's judging pool (incremental: existing items and their judgments are kept). "
        "--preview prints pool sizes per topic and each run's unique contribution without writing anything."
    )

    def add_arguments(self, parser):
        parser.add_argument("collection", help="the collection's name or id")
        strategies = pool_strategies.REGISTRY.values()
        parser.add_argument(
            "--strategy",
            choices=list(pool_strategies.REGISTRY),
            default="depth",
            help="; ".join(f"{s.name}: {s.label} (size is a {s.size})" for s in strategies).replace("%", "%%"),
        )
        by = {
            size: [s.name for s in pool_strategies.REGISTRY.values() if s.size == size] for size in ("depth", "budget")
        }
        parser.add_argument("--depth", type=int, help=f"depth k, for --strategy {' and '.join(by['depth'])}")
        parser.add_argument("--budget", type=int, help=f"documents per topic, for {', '.join(by['budget'])}")
        parser.add_argument("--runs", nargs="+", metavar="TAG", help="pool only these runs (default: all)")
        parser.add_argument("--preview", action="store_true", help="show what would be added; write nothing")
        parser.add_argument("--more-assessors", action="store_true", help="also queue documents someone already judged")

    def handle(self, *args, **options):
        collection = collection_named(options["collection"])
        runs = None
        if options["runs"]:
            try:
                runs = selectors.runs_tagged(collection=collection, tags=options["runs"])
            except ValidationError as error:
                raise CommandError("; ".join(error.messages)) from error
        with tqdm(desc="pooling", unit="topic", file=self.stderr, mininterval=0.2) as bar:

            def progress(done: int, total: int) -> None:
                bar.total = total
                bar.n = done
                bar.refresh()

            try:
                report = pool_build(
                    collection=collection,
                    strategy=options["strategy"],
                    depth=options["depth"],
                    budget=options["budget"],
                    runs=runs,
                    more_assessors=options["more_assessors"],
                    commit=not options["preview"],
                    progress=progress,
                )
            except ValidationError as error:
                raise CommandError("; ".join(f"{k}: {' '.join(v)}" for k, v in error.message_dict.items())) from error
        self.stdout.write("topic\tnew\talready pooled")
        for number, (new, existing) in report.topics.items():
            self.stdout.write(f"{number}\t{new}\t{existing}")
        self.stdout.write("run\tunique new documents")
        for tag, count in sorted(report.unique.items()):
            self.stdout.write(f"{tag}\t{count}")
        verb = "added" if report.committed else "would add (preview, nothing written)"
        self.stdout.write(f"{verb} {report.added} items with {report.strategy}")
