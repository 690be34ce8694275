"""URLs of the evaluation pages."""

from django.urls import path

from evaluation.agreement.views import heatmap as agreement
from evaluation.agreement.views import reliability
from evaluation.analysis.views import plots, runs, trial
from evaluation.estimate import views as estimate
from evaluation.machines import views as machines
from evaluation.nuggets import views as rag
from evaluation.online import views as online
from evaluation.reports import views as reports
from evaluation.views import leaderboard, measures

app_name = "evaluation"
urlpatterns = [
    path("", leaderboard.leaderboard_index, name="leaderboard_index"),
    path("measures/", measures.measure_list, name="measures"),
    path("<int:collection_id>/", leaderboard.leaderboard, name="leaderboard"),
    path("<int:collection_id>/coverage/", leaderboard.coverage, name="coverage"),
    path("<int:collection_id>/assessor-groups/", leaderboard.assessor_groups, name="assessor_groups"),
    path("<int:collection_id>/preferences/", leaderboard.preferences_card, name="preferences"),
    path("<int:collection_id>/prefs/", leaderboard.prefs_download, name="prefs_download"),
    path("<int:collection_id>/qrels/", leaderboard.qrels_download, name="qrels_download"),
    path("<int:collection_id>/results/", leaderboard.results_download, name="results_download"),
    path("<int:collection_id>/estimates/", leaderboard.estimates_download, name="estimates_download"),
    path("<int:collection_id>/how-sure/", estimate.estimate_card, name="estimate"),
    path("<int:collection_id>/how-sure/draw/", estimate.estimate_draw, name="estimate_draw"),
    path("<int:collection_id>/how-sure/pair/", estimate.estimate_pair, name="estimate_pair"),
    path("<int:collection_id>/how-sure/trust/", estimate.estimate_trust, name="estimate_trust"),
    path("<int:collection_id>/how-sure/estimate.json", estimate.estimate_download, name="estimate_download"),
    path("<int:collection_id>/runs/<int:run_id>/", runs.run_detail, name="run"),
    path("<int:collection_id>/compare/", runs.compare, name="compare"),
    path("<int:collection_id>/curves/", runs.curves, name="curves"),
    path("<int:collection_id>/agreement/", agreement.agreement, name="agreement"),
    path("<int:collection_id>/machines/", machines.machines, name="machines"),
    path("<int:collection_id>/reliability/", reliability.reliability, name="reliability"),
    path("<int:collection_id>/trial/", trial.trial_run, name="trial"),
    path("<int:collection_id>/online/", online.online, name="online"),
    path("<int:collection_id>/rag/", rag.rag_leaderboard, name="rag_leaderboard"),
    path("<int:collection_id>/rag/nuggets.jsonl", rag.nuggets_export, name="nuggets_export"),
    path("<int:collection_id>/rag/<int:run_id>/assignments.jsonl", rag.assignments_export, name="assignments_export"),
    path("<int:collection_id>/rag/<int:run_id>/answers.jsonl", rag.answers_export, name="answers_export"),
    path("<int:collection_id>/online/new/", online.search_log_new, name="search_log_new"),
    path("<int:collection_id>/online/<int:log_id>/upload/", online.search_log_upload, name="search_log_upload"),
    path("<int:collection_id>/online/<int:log_id>/settings/", online.search_log_settings, name="search_log_settings"),
    path("<int:collection_id>/online/<int:log_id>/implicit/", online.implicit_judgments, name="implicit_judgments"),
    path("<int:collection_id>/online/<int:log_id>/topics/", online.traffic_topics, name="traffic_topics"),
    path("<int:collection_id>/track/", reports.track_results, name="track_results"),
    path("<int:collection_id>/reports/<int:submission_id>/", reports.report, name="report"),
    path("<int:collection_id>/reports/<int:submission_id>/report.txt", reports.report_download, name="report_download"),
    path("<int:collection_id>/plots/<slug:name>.<slug:fmt>", plots.plot, name="plot"),
]
