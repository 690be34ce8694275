"""URLs of the evaluation app's API (included under /api/collections/ID/): freshness, recomputes, exports, results,
agreement, comparisons and trial runs."""

from django.urls import path

from evaluation import api
from evaluation.estimate import api as estimate
from evaluation.nuggets import api as rag
from evaluation.reports import api as reports

urlpatterns = [
    path("status/", api.CollectionStatusView.as_view(), name="api-collection-status"),
    path("recompute/", api.CollectionRecomputeView.as_view(), name="api-collection-recompute"),
    path("qrels/", api.QrelsExportView.as_view(), name="api-qrels"),
    path("results/", api.ResultsView.as_view(), name="api-results"),
    path("estimate/", estimate.EstimateView.as_view(), name="api-estimate"),
    path("estimate/draws/", estimate.TopicDrawsView.as_view(), name="api-estimate-draws"),
    path("rag-leaderboard/", rag.RagLeaderboard.as_view(), name="api-rag-leaderboard"),
    path("search-regressions/", api.SearchRegressionsView.as_view(), name="api-search-regressions"),
    path("submissions/<int:submission_id>/report/", reports.SubmissionReport.as_view(), name="api-submission-report"),
    path("results/export/", api.ResultsExportView.as_view(), name="api-results-export"),
    path("agreement/", api.AgreementView.as_view(), name="api-agreement"),
    path("compare/", api.CompareView.as_view(), name="api-compare"),
    path("pairs/", api.PairsView.as_view(), name="api-pairs"),
    path("trial/", api.TrialRunView.as_view(), name="api-trial"),
    path("reliability/", api.ReliabilityView.as_view(), name="api-reliability"),
    path("preferences/", api.PreferencesView.as_view(), name="api-preferences"),
    path(
        "machine-judges/<int:judge_id>/verification/",
        api.MachineVerificationView.as_view(),
        name="api-machine-verification",
    ),
]
