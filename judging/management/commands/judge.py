"""`manage.py judge COLLECTION --judge NAME [--topics NUM ...] [--limit N] [--retry-failed]`: a machine judge's run
in the foreground, with a progress bar; the same work as the page's and the API's Job (replies kept as they arrive,
so an interrupted run resumes where it stopped)."""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from judging import selectors
from judging.machines.models import MachineJudge
from judging.machines.services import machine_judge_run
from judging.management.commands._importing import collection_named


class Command(BaseCommand):
    help = (
        "Runs a machine judge over the collection's pool: every pooled pair it has no reply for under its current "
        "configuration (or, with --retry-failed, every pair whose reply failed). Labels go in as its judgments."
    )

    def add_arguments(self, parser):
        parser.add_argument("collection", help="the collection's name or id")
        parser.add_argument("--judge", required=True, help="the machine judge's name")
        parser.add_argument("--topics", nargs="+", metavar="NUM", help="only these topics (their numbers)")
        parser.add_argument("--limit", type=int, help="ask about at most N pairs")
        parser.add_argument("--retry-failed", action="store_true", help="ask again only where the reply failed")

    def handle(self, *args, **options):
        collection = collection_named(options["collection"])
        judge = MachineJudge.objects.filter(collection=collection, name=options["judge"]).first()
        if judge is None:
            names = ", ".join(MachineJudge.objects.filter(collection=collection).values_list("name", flat=True))
            raise CommandError(f"no machine judge {options['judge']!r} in {collection.name} (it has {names or 'none'})")
        if options["limit"] is not None and options["limit"] < 1:
            raise CommandError("--limit must be at least 1")
        topic_ids = None
        if options["topics"]:
            try:
                topic_ids = [t.id for t in selectors.topics_numbered(collection=collection, numbers=options["topics"])]
            except ValidationError as error:
                raise CommandError("; ".join(error.messages)) from error
        with tqdm(desc=f"judging with {judge.name}", unit="pair", file=self.stderr, mininterval=0.2) as bar:

            def progress(done: int, total: int, detail: dict | None = None) -> None:
                bar.total, bar.n = total, done
                if detail:
                    bar.set_postfix(failed=detail["failed"], tokens=sum(detail["tokens"].values()), refresh=False)
                bar.refresh()

            result = machine_judge_run(
                judge=judge, topic_ids=topic_ids, limit=options["limit"], retry_failed=options["retry_failed"],
                progress=progress,
            )  # fmt: skip
        self.stdout.write(
            f"{result['labelled']} labelled, {result['failed']} failed, {result['left']} left; "
            f"{result['tokens']['prompt']} prompt and {result['tokens']['completion']} completion tokens"
            + (f"; stopped: {result['stopped']}" if result["stopped"] else "")
        )
        if result["failed"]:
            raise CommandError(f"{result['failed']} pair(s) failed: see their reasons on the judge's page")
