"""The Celery app; its configuration lives in Django settings under the CELERY_ prefix."""

import os

from celery import Celery, signals

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
app = Celery("workbench")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()

# How every recompute task retries, in one place: a recompute is idempotent, so it is retried with backoff through a
# broker or database hiccup.
RECOMPUTE_RETRY = dict(
    acks_late=True, autoretry_for=(Exception,), retry_backoff=True, retry_backoff_max=60, max_retries=8
)

# Celery's Django fixup closes every database connection before and after each task unless this is set (read
# under this literal name, outside the CELERY_ namespace): a judgment's recompute then opened a new PostgreSQL
# connection each time, a server process forked and its catalog caches filled again (PostgreSQL's CPU per judgment
# at 40/s fell from 17.5 to 10.5 ms without it, docs/benchmarks.md). With it, the fixup closes them only every this
# many tasks, and the handlers below give a task what Django gives a request: connections kept for CONN_MAX_AGE,
# closed when broken or expired.
app.conf.CELERY_DB_REUSE_MAX = 10_000


@signals.task_prerun.connect
@signals.task_postrun.connect
def _connections_as_for_a_request(sender=None, **kwargs) -> None:
    # Not for an eager task: it runs inside its caller's transaction, which a check of the connection would end.
    if sender is not None and not getattr(sender.request, "is_eager", False):
        from django.db import close_old_connections

        close_old_connections()
