"""App configuration for judging."""

from django.apps import AppConfig


class JudgingConfig(AppConfig):
    name = "judging"
    default_auto_field = "django.db.models.BigAutoField"

    def import_models(self) -> None:
        super().import_models()
        # The features' models are this app's (its tables and migrations), imported as Django imports the app's
        # own: so the core's models.py never imports a feature.
        import judging.jobs.models
        import judging.machines.models
        import judging.preferences.models
        import judging.quality.models
        import judging.rag.models.answers
        import judging.rag.models.nuggets
        import judging.search_fetch.models
        import judging.sources.models
        import judging.tracks.models  # noqa: F401

    def ready(self) -> None:
        # The project's Celery app, loaded as Django starts, so that every shared task binds to it (Celery's Django
        # guide does this in the project package's __init__, which the pure outbound rules also live in); and every
        # feature's tasks, so that every process knows every task by name, to send it.
        import judging.datasets.tasks
        import judging.imports.tasks
        import judging.jobs.tasks
        import judging.machines.tasks
        import judging.rag.tasks
        import judging.search_fetch.tasks  # noqa: F401
        from config import celery  # noqa: F401
        from judging.datasets import services as datasets
        from judging.imports import services as imports
        from judging.jobs import kinds
        from judging.machines import services as machines
        from judging.rag.services import machine as machine_nuggets
        from judging.search_fetch import services as search_fetch
        from judging.services import pools

        # Every kind of long work judging starts, registered here and nowhere else (the job page reads the registry).
        kinds.register(
            imports.IMPORT_JOB,
            pools.POOL_JOB,
            machines.MACHINE_RUN_JOB,
            machines.MACHINE_PROBE_JOB,
            search_fetch.FETCH_JOB,
            datasets.DATASET_JOB,
            machine_nuggets.PROPOSE_JOB,
            machine_nuggets.ASSIGN_JOB,
            machine_nuggets.SUPPORT_JOB,
        )
        _plug_features_into_the_core()
        # The pure readers' limits come from the settings, given to them here and again when the setting changes.
        from django.conf import settings
        from django.core.signals import setting_changed

        from judging.imports.core import problems

        problems.limits_configure(settings.WORKBENCH_LIMITS)
        setting_changed.connect(_limits_changed, dispatch_uid="judging-import-limits")


def _limits_changed(*, setting, value, **kwargs) -> None:
    if setting == "WORKBENCH_LIMITS":
        from judging.imports.core import problems

        problems.limits_configure(value or {})


def _plug_features_into_the_core() -> None:
    """What the core asks of the features (`judging.plugins`), answered by the features installed."""
    from judging import plugins
    from judging.machines import selectors as machines
    from judging.machines.services import verification_settings_update
    from judging.preferences import selectors as preferences
    from judging.preferences.services import preference_settings_update
    from judging.quality import selectors as quality
    from judging.quality.services import pauses
    from judging.quality.services.settings import quality_settings_update
    from judging.tracks import selectors as tracks
    from judging.tracks.services import submission_settings_update

    plugins.plug(plugins.label_guards, pauses.refuse_if_paused)
    plugins.plug(plugins.account_namers, machines.machine_names)
    plugins.plug(plugins.other_labellers, quality.check_answerers)
    plugins.plug(plugins.queue_orders, machines.verification_queue_order)
    plugins.plug(plugins.queue_reservations, quality.gold_reserved)
    for settings_update in (
        quality_settings_update,
        preference_settings_update,
        verification_settings_update,
        submission_settings_update,
    ):
        plugins.plug(plugins.settings_writers, settings_update)
    for relation in ("quality_settings", "preference_settings", "verification_settings", "submission_settings"):
        plugins.plug(plugins.settings_relations, relation)
    readers = (quality.quality_settings_values, preferences.preference_settings_values)
    for settings_values in (*readers, machines.verification_settings_values, tracks.submission_settings_values):
        plugins.plug(plugins.settings_readers, settings_values)
