"""The machine judges' results page: each judge against people (every person and the consensus), its error rates
on verified items, the leaderboard with the pool's holes filled by its labels beside the people's, and both qrels
versions to download."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from evaluation.machines import selectors as verification
from evaluation.pages import researcher_collection
from judging.permissions import sees_assessors


@login_required
def machines(request: HttpRequest, collection_id: int) -> HttpResponse:
    collection = researcher_collection(request, collection_id)
    judges = verification.machine_judges(collection=collection)
    wanted = request.GET.get("judge")
    chosen = next((j for j in judges if j.name == wanted), judges[0] if judges else None)
    report = (
        verification.judge_verification(judge=chosen, reveal=sees_assessors(request.user, collection))
        if chosen
        else None
    )
    measure, rows = None, []
    if report:
        measures = report["measures"]
        measure = request.GET.get("measure") if request.GET.get("measure") in measures else report["measure"]
        column = measures.index(measure) if measure in measures else 0
        measure = measures[column]
        rows = [
            {"run": r["run"], "people": r["people"][column], "filled": r["filled"][column],
             "difference": r["difference"][column], "shares_family": r.get("shares_family", False)}
            for r in report["leaderboard"]
        ]  # fmt: skip
    context = {
        "measure": measure,
        "rows": rows,
        "collection": collection,
        "judges": judges,
        "chosen": chosen,
        "report": report,
        "categories": list(range(collection.max_grade + 1)),
        "bias_rows": [
            (key, label, report["rating_bias"][key])
            for key, label in (("over_rating", "Over-rating (relevant, people: not)"),
                               ("under_rating", "Under-rating (not relevant, people: relevant)"))
        ] if report else [],
    }  # fmt: skip
    return render(request, "evaluation/machines.html", context)
