"""`manage.py import_log COLLECTION --log NAME QUERIES [EVENTS]`: import a search log into a collection's log store."""

from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from evaluation.online import services as search_logs
from evaluation.online.core.records import LOG_FORMATS
from evaluation.online.core.store import LogImportFailed
from evaluation.online.models import SearchLog
from judging.management.commands._importing import collection_named


class Command(BaseCommand):
    help = (
        "Imports a search log (UBI 1.0 ubi_queries and ubi_events JSON lines, or an AOL TSV) into the collection's "
        "log NAME (created on first use), all or nothing; rows already in the log are skipped."
    )

    def add_arguments(self, parser):
        parser.add_argument("collection", help="the collection's name or id")
        parser.add_argument("files", nargs="+", help="UBI: QUERIES [EVENTS] (or --events-only EVENTS); AOL: LOG")
        parser.add_argument("--log", required=True, help="the log's name within the collection")
        parser.add_argument("--format", choices=[f for f, _ in SearchLog.FORMATS], default="ubi")
        parser.add_argument("--events-only", action="store_true", help="UBI: the one file given is an events file")

    def handle(self, *args, collection, files, log, format, events_only, **options):
        target = collection_named(collection)
        found = SearchLog.objects.filter(collection=target, name=log).first()
        if found is not None and found.log_format != format:
            raise CommandError(f"the log {log!r} holds {found.log_format} records, not {format}")
        if LOG_FORMATS[format].one_file:
            if len(files) != 1:
                raise CommandError(f"an {format.upper()} log is one file")
            kinds = {"log": files[0]}
        elif events_only:
            if len(files) != 1:
                raise CommandError("--events-only takes one file")
            kinds = {"events": files[0]}
        elif len(files) > 2:
            raise CommandError("a UBI log is a queries file and an events file")
        else:
            kinds = dict(zip(("queries", "events"), files, strict=False))
        try:
            found = found or search_logs.search_log_create(collection=target, name=log, log_format=format)
        except ValidationError as error:
            raise CommandError("; ".join(error.messages)) from None
        with tqdm(desc=f"importing {log}", unit="%", total=100, file=self.stderr, mininterval=0.2) as bar:

            def progress(done: int, total: int) -> None:
                bar.update(int(100 * done / max(total, 1)) - bar.n)

            try:
                entry = search_logs.search_log_import(search_log=found, files=kinds, progress=progress)
            except LogImportFailed as failure:
                raise CommandError(str(failure)) from None
        days = f"{entry['days'][0]} to {entry['days'][-1]}" if entry["days"] else "none"
        self.stdout.write(
            self.style.SUCCESS(
                f"{log}: {entry['queries']} queries and {entry['events']} events added "
                f"({entry['skipped_queries']} and {entry['skipped_events']} already there), days {days}"
            )
        )
