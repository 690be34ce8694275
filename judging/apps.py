"""App configuration for judging."""

from django.apps import AppConfig


class JudgingConfig(AppConfig):
    name = "judging"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # The project's Celery app, loaded as Django starts, so that every shared task binds to it (Celery's Django
        # guide does this in the project package's __init__, which the pure outbound rules also live in).
        from config import celery  # noqa: F401
