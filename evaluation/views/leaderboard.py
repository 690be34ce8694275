"""The leaderboard (sortable, with judged@10 and topics evaluated, freshness and agreement) and the downloads."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.core.exceptions import BadRequest
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render

from config.api_errors import error_answer
from evaluation import downloads, selectors
from evaluation.agreement import assessor_groups as assessor_groups_reads
from evaluation.analysis import selectors as analysis
from evaluation.analysis import selectors as analysis_selectors
from evaluation.pages import researcher_collection
from evaluation.preferences import selectors as preference_results
from evaluation.selectors import COVERAGE_MEASURE
from judging import selectors as judging_selectors
from judging.machines import selectors as machine_selectors
from judging.machines.models import MachineJudge
from judging.models import ROLE_ADMIN, ROLE_RESEARCHER, Collection
from judging.permissions import role_required, sees_assessors
from judging.preferences import selectors as preferring


@role_required(ROLE_ADMIN, ROLE_RESEARCHER)
def leaderboard_index(request: HttpRequest) -> HttpResponse:
    """Every collection, each with its size and a way into its results."""
    return render(request, "evaluation/index.html", {"collections": judging_selectors.collections_overview()})


@role_required(ROLE_ADMIN, ROLE_RESEARCHER)
def coverage(request: HttpRequest, collection_id: int) -> HttpResponse:
    """Each run's stored Judged@10, least covered first: the panel the campaign dashboard loads (a partial)."""
    collection = researcher_collection(request, collection_id)
    rows = selectors.runs_judged_at_10(collection=collection)
    return render(request, "evaluation/_coverage.html", {"collection": collection, "coverage": rows})


def _headers(measures: list[str], sort: str, descending: bool) -> list[dict]:
    """Column headers with the link that sorts by them (a second click reverses the order). The run and its Judged@10
    (the "can I trust this score?" flag) come first, and stay in view when the table scrolls sideways."""
    columns = [("tag", "Run"), ("judged", COVERAGE_MEASURE), ("topics", "Topics"), *[(m, m) for m in measures]]
    headers = []
    for key, label in columns:
        current = key == sort
        first_order = "asc" if key == "tag" else "desc"
        order = ("asc" if descending else "desc") if current else first_order
        headers.append(
            {"key": key, "label": label, "order": order, "current": current, "numeric": key != "tag"}
            | {"aria": ("descending" if descending else "ascending") if current else "none"}
        )
    return headers


@login_required
def leaderboard(request: HttpRequest, collection_id: int) -> HttpResponse:
    collection = researcher_collection(request, collection_id)
    available = [m for m in collection.measures if m != COVERAGE_MEASURE]  # shown once, in its own column
    chosen = [m for m in request.GET.getlist("columns") if m in available]
    measures = chosen or available
    sort = request.GET.get("sort", measures[0] if measures else "tag")
    descending = request.GET.get("order", "asc" if sort == "tag" else "desc") == "desc"
    try:
        rows = selectors.leaderboard(collection=collection, measures=measures, sort=sort, descending=descending)
    except ValueError as error:
        raise BadRequest(str(error)) from error
    judges = list(MachineJudge.objects.filter(collection=collection))
    context = {
        "collection": collection,
        "collections": Collection.objects.order_by("name"),
        "measures": measures,
        "available_measures": available,
        "columns_query": "".join(f"&columns={m}" for m in chosen),
        "compare_measure": sort if sort in measures else (measures[0] if measures else ""),
        "headers": _headers(measures, sort, descending),
        "rows": rows,
        "freshness": selectors.collection_freshness(collection=collection),
        "agreement": selectors.collection_agreement_labelled(collection_id=collection.id),
        "estimates": analysis_selectors.sampled_pool_estimates(collection=collection),
        "regressions": [r for r in analysis.search_regressions(collection=collection) if r["flagged"]],
        "by_preferences": preferring.by_preferences(collection),
        "machine_labelled": bool(judges),
        "gullible": list(machine_selectors.gullible_machines(collection=collection, judges=judges).values()),
    }
    return render(request, "evaluation/leaderboard.html", context)


@login_required
def estimates_download(request: HttpRequest, collection_id: int) -> HttpResponse:
    """The sampled pool's estimates as CSV, each named as an estimate with its interval; 404 without a sample."""
    collection = researcher_collection(request, collection_id)
    estimates = analysis_selectors.sampled_pool_estimates(collection=collection)
    if estimates is None:
        raise Http404("this collection has no sampled pool")
    return downloads.estimates_download(collection, estimates)


@login_required
def qrels_download(request: HttpRequest, collection_id: int) -> HttpResponse:
    """The qrels file (parameters as in `downloads`); 400 with the reason for a bad parameter."""
    collection = researcher_collection(request, collection_id)
    try:
        return downloads.qrels_download(collection, request.GET, request.user)
    except downloads.BadExportRequest as error:
        return error_answer(400, str(error))


@login_required
def results_download(request: HttpRequest, collection_id: int) -> HttpResponse:
    collection = researcher_collection(request, collection_id)
    try:
        return downloads.results_download(collection, request.GET)
    except downloads.BadExportRequest as error:
        return error_answer(400, str(error))


@login_required
def assessor_groups(request: HttpRequest, collection_id: int) -> HttpResponse:
    """Whose labels count? Each run's measure under the consensus beside its mean over the assessors' own label
    sets (trec_eval's *_avgjg), a partial the leaderboard loads."""
    collection = researcher_collection(request, collection_id)
    measures = [m for m in collection.measures if m != COVERAGE_MEASURE]
    measure = request.GET.get("measure") if request.GET.get("measure") in measures else (measures or [None])[0]
    rows = assessor_groups_reads.averaged_over_assessors(collection=collection, measure=measure) if measure else []
    context = {"collection": collection, "measures": measures, "measure": measure, "rows": rows}
    return render(request, "evaluation/_assessor_groups.html", context)


@login_required
def preferences_card(request: HttpRequest, collection_id: int) -> HttpResponse:
    """The runs' prefs_* measures from the assessors' preference judgments, with agreement on shared pairs and the
    two exports (a partial the leaderboard loads)."""
    collection = researcher_collection(request, collection_id)
    board = preference_results.prefs_leaderboard(collection=collection)
    return render(request, "evaluation/_preferences.html", {"collection": collection, "board": board})


@login_required
def prefs_download(request: HttpRequest, collection_id: int) -> HttpResponse:
    """The preferences as the prefs file trec_eval reads with -R prefs."""
    collection = researcher_collection(request, collection_id)
    reveal = sees_assessors(request.user, collection)
    name, meta, lines = preference_results.prefs_file(collection=collection, reveal=reveal)
    return downloads.streamed(name, meta, lines)
