"""App configuration for evaluation: connects its staleness services to what judging announces."""

from django.apps import AppConfig


class EvaluationConfig(AppConfig):
    name = "evaluation"
    default_auto_field = "django.db.models.BigAutoField"

    def import_models(self) -> None:
        super().import_models()
        # The features' models are this app's, imported as Django imports the app's own (see `judging.apps`).
        import evaluation.estimate.models
        import evaluation.nuggets.models
        import evaluation.online.models  # noqa: F401

    def ready(self) -> None:
        import evaluation.analysis.tasks
        import evaluation.nuggets.tasks
        import evaluation.online.tasks  # noqa: F401
        from evaluation import receivers, tasks  # noqa: F401  (tasks: every process knows them by name, to send them)
        from evaluation.analysis import trial_runs
        from evaluation.online import services as search_logs
        from evaluation.services import recompute
        from judging import signals
        from judging.jobs import kinds

        kinds.register(recompute.RECOMPUTE_JOB, trial_runs.TRIAL_RUN_JOB, search_logs.SEARCH_LOG_IMPORT_JOB)

        # dispatch_uid: connected once, however often ready() runs (tests may call it again).
        for name in (
            "labels_changed",
            "rankings_changed",
            "collection_changed",
            "collection_deleting",
            "answers_changed",
        ):
            getattr(signals, name).connect(getattr(receivers, name), dispatch_uid=f"evaluation.{name}")
