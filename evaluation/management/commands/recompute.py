"""`manage.py recompute COLLECTION`: recompute every topic's metrics and agreement now, with a progress bar."""

from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from evaluation import services
from judging.models import Collection


class Command(BaseCommand):
    help = "Recomputes a collection's metrics and agreement in this process (name or id), showing progress."

    def add_arguments(self, parser):
        parser.add_argument("collection", help="the collection's name or id")

    def handle(self, *args, collection, **options):
        found = Collection.objects.filter(pk=int(collection)) if collection.isdigit() else None
        found = found if found and found.exists() else Collection.objects.filter(name=collection)
        target = found.first()
        if target is None:
            raise CommandError(f"no collection named or numbered {collection!r}")
        with tqdm(desc=f"recompute {target.name}", unit="topic", file=self.stderr) as bar:

            def progress(done: int, total: int) -> None:
                bar.total = total
                bar.update(done - bar.n)

            topics = services.collection_recompute(collection_id=target.id, progress=progress)
        self.stdout.write(self.style.SUCCESS(f"Recomputed {topics} topics of {target.name}."))
