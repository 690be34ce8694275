"""A run's page (per-topic values, bar chart, histogram), two runs compared with significance tests, and the curves
page that overlays chosen runs."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import BadRequest
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.http import urlencode

from evaluation import selectors
from evaluation.analysis import selectors as analysis
from evaluation.pages import chosen_measure, chosen_run, chosen_runs, researcher_collection
from judging.models import Run


@login_required
def run_detail(request: HttpRequest, collection_id: int, run_id: int) -> HttpResponse:
    collection = researcher_collection(request, collection_id)
    run = chosen_run(collection, str(run_id), "run")
    measure = chosen_measure(collection, request.GET.get("measure"))
    values = analysis.run_topic_values(run=run, measure=measure)
    defined = [v for _, v in values if v is not None]
    context = {
        "collection": collection,
        "run": run,
        "measure": measure,
        "measures": collection.measures,
        "values": values,
        "mean": sum(defined) / len(defined) if defined else None,
        "others": Run.objects.filter(collection=collection).exclude(pk=run.pk).order_by("tag"),
        "freshness": selectors.collection_freshness(collection=collection),
        "query": urlencode({"run": run.id, "measure": measure}),
        "runs_query": urlencode({"runs": run.id}),
    }
    return render(request, "evaluation/run.html", context)


@login_required
def compare(request: HttpRequest, collection_id: int) -> HttpResponse:
    collection = researcher_collection(request, collection_id)
    chosen = list(dict.fromkeys(v for v in request.GET.getlist("runs") if v))
    if "a" not in request.GET and len(chosen) != 2:
        # From the leaderboard's ticks: say what to do instead of failing (a comparison is of exactly two runs).
        messages.error(request, f"Tick exactly two runs to compare them; {len(chosen) or 'none'} ticked.")
        return redirect("evaluation:leaderboard", collection_id=collection.id)
    a_value, b_value = chosen if chosen else (request.GET.get("a"), request.GET.get("b"))
    a, b = chosen_run(collection, a_value, "a"), chosen_run(collection, b_value, "b")
    if a == b:
        raise BadRequest("choose two different runs to compare")
    measure = chosen_measure(collection, request.GET.get("measure"))
    context = {
        "collection": collection,
        "measure": measure,
        "measures": collection.measures,
        "comparison": analysis.runs_compare(collection=collection, a=a, b=b, measure=measure),
        "pairs": analysis.all_pairs(collection=collection, measure=measure),
        "runs": Run.objects.filter(collection=collection).order_by("tag"),
        "query": urlencode({"a": a.id, "b": b.id, "measure": measure}),
        "runs_query": urlencode({"runs": [a.id, b.id]}, doseq=True),
    }
    return render(request, "evaluation/compare.html", context)


@login_required
def curves(request: HttpRequest, collection_id: int) -> HttpResponse:
    collection = researcher_collection(request, collection_id)
    runs = chosen_runs(collection, request.GET.getlist("runs"))
    if not runs:
        runs = list(Run.objects.filter(collection=collection).order_by("tag")[:5])
    context = {
        "collection": collection,
        "runs": runs,
        "all_runs": Run.objects.filter(collection=collection).order_by("tag"),
        "query": urlencode({"runs": [run.id for run in runs]}, doseq=True),
    }
    return render(request, "evaluation/curves.html", context)
