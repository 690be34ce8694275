"""`manage.py assign_assessors COLLECTION alice bob carol [--topics 301 302]`: balanced assignment, k per topic."""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError

from judging import selectors
from judging.management.commands._importing import collection_named
from judging.services import assignments_balance


class Command(BaseCommand):
    help = (
        "Assigns the named assessors to the collection's topics, the collection's k assessors per topic, largest "
        "pools first to the least loaded; existing assignments count, so running it again adds only what is missing."
    )

    def add_arguments(self, parser):
        parser.add_argument("collection", help="the collection's name or id")
        parser.add_argument("assessors", nargs="+", metavar="USERNAME")
        parser.add_argument("--topics", nargs="+", metavar="NUMBER", help="only these topics (default: all)")

    def handle(self, *args, **options):
        collection = collection_named(options["collection"])
        numbers = options["topics"]
        try:
            people = selectors.assessors_named(usernames=options["assessors"])
            topics = selectors.topics_numbered(collection=collection, numbers=numbers) if numbers else None
            created = assignments_balance(collection=collection, assessors=people, topics=topics)
        except ValidationError as error:
            raise CommandError("; ".join(error.messages)) from error
        for assignment in created:
            self.stdout.write(f"{assignment.topic.number}\t{assignment.assessor.username}")
        self.stderr.write(f"{len(created)} assignment(s) added to {collection.name}")
