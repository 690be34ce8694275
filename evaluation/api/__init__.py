"""The evaluation REST API: `results` (status, recompute, exports, results, agreement) and `analysis` (comparisons,
trial runs, machine verification, reliability, preferences, search regressions)."""

from evaluation.api.analysis import (
    CompareView,
    MachineVerificationView,
    PairsView,
    PreferencesView,
    ReliabilityView,
    SearchRegressionsView,
    TrialRunSerializer,
    TrialRunView,
)
from evaluation.api.results import (
    MAX_STATUS_PAGE,
    AgreementView,
    CollectionRecomputeView,
    CollectionStatusView,
    QrelsExportView,
    ResultsExportView,
    ResultsView,
)

__all__ = [
    "MAX_STATUS_PAGE",
    "AgreementView",
    "CollectionRecomputeView",
    "CollectionStatusView",
    "CompareView",
    "MachineVerificationView",
    "PairsView",
    "PreferencesView",
    "QrelsExportView",
    "ReliabilityView",
    "ResultsExportView",
    "ResultsView",
    "SearchRegressionsView",
    "TrialRunSerializer",
    "TrialRunView",
]
