"""URLs of the evaluation pages."""

from django.urls import path

from .views import agreement, leaderboard, plots, runs, trial

app_name = "evaluation"
urlpatterns = [
    path("", leaderboard.leaderboard_index, name="leaderboard_index"),
    path("<int:collection_id>/", leaderboard.leaderboard, name="leaderboard"),
    path("<int:collection_id>/coverage/", leaderboard.coverage, name="coverage"),
    path("<int:collection_id>/qrels/", leaderboard.qrels_download, name="qrels_download"),
    path("<int:collection_id>/results/", leaderboard.results_download, name="results_download"),
    path("<int:collection_id>/runs/<int:run_id>/", runs.run_detail, name="run"),
    path("<int:collection_id>/compare/", runs.compare, name="compare"),
    path("<int:collection_id>/curves/", runs.curves, name="curves"),
    path("<int:collection_id>/agreement/", agreement.agreement, name="agreement"),
    path("<int:collection_id>/trial/", trial.trial_run, name="trial"),
    path("<int:collection_id>/plots/<slug:name>.<slug:fmt>", plots.plot, name="plot"),
]
