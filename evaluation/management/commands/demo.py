"""`manage.py demo`: migrate, load the demo collection (with its search log) if there is none, print the accounts,
serve the app. In evaluation, which reads judging, since the demo needs both."""

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError

from evaluation.estimate.demo import demo_topics_drawn
from evaluation.online.demo import demo_search_log_create
from judging.demo import DEMO_NAME, DEMO_USERS, demo_create
from judging.models import Collection


class Command(BaseCommand):
    help = "Sets up the demo collection (once) and runs the development server."

    def add_arguments(self, parser):
        parser.add_argument("--no-serve", action="store_true", help="only set up the demo, do not start the server")
        parser.add_argument("--addrport", default="127.0.0.1:8000")
        parser.add_argument(
            "--allow-demo-accounts",
            action="store_true",
            help="create the demo's well-known accounts even with DEBUG off (never on a public server)",
        )

    def handle(self, *args, no_serve=False, addrport="127.0.0.1:8000", allow_demo_accounts=False, **options):
        if not settings.DEBUG and not allow_demo_accounts:
            raise CommandError(
                "DEBUG is off: the demo's accounts have published passwords, so they are not created on what may be "
                "a public server. Run with DEBUG=true, or pass --allow-demo-accounts if this machine is private."
            )
        call_command("migrate", interactive=False, verbosity=0)
        if not Collection.objects.filter(name=DEMO_NAME).exists():
            self.stdout.write("Loading the demo collection (Python docstrings, 10 topics, 4 runs and 2 RAG runs)...")
            collection = demo_create()
            search_log = demo_search_log_create(collection=collection)
            demo_topics_drawn(collection=collection)
            self.stdout.write(
                self.style.SUCCESS(
                    f"Demo ready: {collection.documents.count()} documents, {collection.topics.count()} topics, "
                    f"{collection.runs.filter(answers__isnull=True).count()} runs and "
                    f"{collection.runs.filter(answers__isnull=False).distinct().count()} RAG runs, "
                    f"a search log of {search_log.imports[0]['queries']} queries."
                )
            )
        self.stdout.write("\nDemo accounts (username / password, role):")
        for username, password, role in DEMO_USERS:
            self.stdout.write(f"  {username:<6} / {password:<16} {role}")
        if no_serve:
            return
        call_command("collectstatic", interactive=False, verbosity=0)
        self.stdout.write(self.style.SUCCESS(f"\nOpen http://{addrport}/ and log in with one of the accounts above.\n"))
        call_command("runserver", addrport, use_reloader=False)
