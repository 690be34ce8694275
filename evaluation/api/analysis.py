"""The API of the analyses: two runs compared, every pair tested, trial runs, a machine judge measured
against people, the reliability table, preferences and search regressions."""

from __future__ import annotations

from dataclasses import asdict

from django.shortcuts import get_object_or_404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import exceptions, serializers
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from evaluation import downloads
from evaluation.agreement import reliability
from evaluation.analysis import selectors as analysis
from evaluation.analysis.trial_runs import trial_run_start
from evaluation.api.results import _measure, _ResearchersRead, _run
from evaluation.api_serializers import (
    CompareSerializer,
    PairsSerializer,
)
from evaluation.machines import selectors as verification
from evaluation.preferences import selectors as preference_results
from judging.jobs.api import JobSerializer, job_accepted
from judging.machines.models import MachineJudge
from judging.models import Collection
from judging.permissions import IsResearcherOrAdmin, sees_assessors


class CompareView(_ResearchersRead):
    """Two runs compared on one measure over the topics both were evaluated on: per-topic differences, a paired
    t-test, a randomisation test (10,000 sign flips, fixed seed), a 95% bootstrap interval of the mean difference,
    and the t-test's p after Holm's correction over every pair of the collection's runs."""

    @extend_schema(
        parameters=[
            OpenApiParameter("a", str, required=True, description="run tag (or id)"),
            OpenApiParameter("b", str, required=True, description="run tag (or id)"),
            OpenApiParameter("measure", str, description="a measure of the collection; default AP"),
        ],
        responses=CompareSerializer,
    )
    def get(self, request: Request, collection_id: int) -> Response:
        collection = self.collection(collection_id)
        a, b = _run(collection, request.query_params, "a"), _run(collection, request.query_params, "b")
        if a == b:
            raise exceptions.ValidationError({"b": ["choose a different run than a"]})
        measure = _measure(collection, request.query_params)
        found = analysis.runs_compare(collection=collection, a=a, b=b, measure=measure)
        r = found.result
        return Response(
            CompareSerializer(
                {
                    "a": a.tag,
                    "b": b.tag,
                    "measure": measure,
                    "topics": [
                        {"topic": t.topic, "a": t.a, "b": t.b, "difference": t.difference} for t in found.topics
                    ],
                    "mean_difference": _number(r.mean_difference),
                    "t_statistic": _number(r.t_statistic),
                    "t_p_value": _number(r.t_p_value),
                    "permutation_p_value": _number(r.permutation_p_value),
                    "bootstrap_ci_95": [_number(r.ci_low), _number(r.ci_high)],
                    "holm_p_value": _number(found.holm_p_value),
                    "pairs": found.pairs,
                }
            ).data
        )


class PairsView(_ResearchersRead):
    """Every pair of runs on one measure: paired t-test p-values with Holm's correction over all pairs."""

    @extend_schema(parameters=[OpenApiParameter("measure", str)], responses=PairsSerializer)
    def get(self, request: Request, collection_id: int) -> Response:
        collection = self.collection(collection_id)
        measure = _measure(collection, request.query_params)
        rows = analysis.all_pairs(collection=collection, measure=measure)
        pairs = [
            {
                "a": p.a,
                "b": p.b,
                "topics": p.topics,
                "mean_difference": _number(p.mean_difference),
                "t_p_value": _number(p.t_p_value),
                "holm_p_value": _number(p.holm_p_value),
                "significant": p.significant,
            }
            for p in rows
        ]
        return Response(PairsSerializer({"measure": measure, "correction": "holm", "pairs": pairs}).data)


def _number(value: float) -> float | None:
    return None if value != value else value


class TrialRunSerializer(serializers.Serializer):
    run = serializers.FileField(help_text="a TREC run file (qid Q0 docno rank score tag), one run")


class TrialRunView(_ResearchersRead):
    """Evaluates an uploaded run against the current consensus qrels without storing or pooling it, as a job (202;
    follow its `url`). The job's result holds the run's aggregates and per-topic values for the collection's
    measures, its judged@10 with a `low_coverage` flag, and the best pooled run per measure; a malformed file fails
    the job with each problem's file, line and field in `result.problems`. A file over the trial-run size limit, or
    a user over the hourly number of trial runs, gets a 400 at once."""

    parser_classes = [MultiPartParser, FormParser]

    @extend_schema(request={"multipart/form-data": TrialRunSerializer}, responses={202: JobSerializer})
    def post(self, request: Request, collection_id: int) -> Response:
        collection = self.collection(collection_id)
        serializer = TrialRunSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        job = trial_run_start(collection=collection, file=serializer.validated_data["run"], created_by=request.user)
        return job_accepted(request, job)


class MachineVerificationView(_ResearchersRead):
    """One machine judge measured against people: Cohen's kappa (graded and binarised), Krippendorff's alpha and
    the confusion matrix against the consensus and each person; error rates per grade on verified items with
    Wilson intervals; the runs' Kendall's tau and tau_ap under its labels versus the consensus; the leaderboard
    with the pool's holes filled by its labels beside the people's; the share of plausible corrections of its
    unverified labels that keep tau >= 0.9. The same figures as the machine judges page."""

    @extend_schema(responses={200: OpenApiTypes.OBJECT})
    def get(self, request: Request, collection_id: int, judge_id: int) -> Response:
        collection = self.collection(collection_id)
        judge = get_object_or_404(MachineJudge.objects.select_related("collection", "account"), pk=judge_id,
                                  collection=collection)  # fmt: skip
        reveal = sees_assessors(request.user, collection)
        return Response(verification.judge_verification(judge=judge, reveal=reveal))


class ReliabilityView(_ResearchersRead):
    """Per assessor (people, machine judges, imported labels): judgments, median seconds, gold accuracy against the
    adjudicated items with Wilson's interval, self-agreement on repeats, Cohen's kappa with the consensus,
    Dawid–Skene's estimated accuracy, and the flags of `judging.quality` (change, random answering, too fast)."""

    @extend_schema(responses={200: OpenApiTypes.OBJECT})
    def get(self, request: Request, collection_id: int) -> Response:
        collection = self.collection(collection_id)
        rows = reliability.assessor_reliability(collection=collection, reveal=sees_assessors(request.user, collection))
        return Response({"collection": collection.name, "assessors": [asdict(row) for row in rows]})


class PreferencesView(_ResearchersRead):
    """Each run's prefs_* measures from the assessors' preference judgments (computed as `python -m evaluation -R
    prefs` computes them from the prefs file, `?format=prefs` here), with agreement between assessors on the pairs
    they share."""

    @extend_schema(responses={200: OpenApiTypes.OBJECT})
    def get(self, request: Request, collection_id: int):
        collection = self.collection(collection_id)
        if request.query_params.get("format") == "prefs":
            reveal = sees_assessors(request.user, collection)
            name, meta, lines = preference_results.prefs_file(collection=collection, reveal=reveal)
            return downloads.streamed(name, meta, lines)
        board = preference_results.prefs_leaderboard(collection=collection)
        return Response({"collection": collection.name, **{k: v for k, v in board.items() if k != "rows"}})


class SearchRegressionsView(APIView):
    """Each live-search endpoint's latest snapshot against the one before on its alert measure: mean difference,
    paired permutation p-value, and whether the drop is flagged."""

    permission_classes = [IsResearcherOrAdmin]

    @extend_schema(responses={200: OpenApiTypes.OBJECT})
    def get(self, request: Request, collection_id: int) -> Response:
        collection = get_object_or_404(Collection, pk=collection_id)
        return Response({"regressions": analysis.search_regressions(collection=collection)})
