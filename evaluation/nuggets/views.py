"""The RAG leaderboard (nugget scores, support, document measures over the references, freshness, agreement on
assignments, machine assigners against people) and the exports in nuggetizer's and TREC's formats."""

from __future__ import annotations

import json

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render

from evaluation.nuggets import selectors
from evaluation.pages import researcher_collection
from judging.models import Run


@login_required
def rag_leaderboard(request: HttpRequest, collection_id: int) -> HttpResponse:
    collection = researcher_collection(request, collection_id)
    context = {
        "collection": collection,
        "board": selectors.rag_leaderboard(collection=collection),
        "agreement": selectors.assignment_agreement(collection=collection),
        "machines": selectors.machine_against_people(collection=collection),
    }
    template = "evaluation/_rag_board.html" if request.htmx else "evaluation/rag.html"
    return render(request, template, context)


def _jsonl(records: list[dict], name: str, collection) -> HttpResponse:
    """The records as JSON lines, with where they come from and how fresh they are in an X-Provenance header (the
    TREC answer format has no room for it in the lines)."""
    body = "".join(json.dumps(record, ensure_ascii=False) + "\n" for record in records)
    response = HttpResponse(body, content_type="application/x-ndjson; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{name}"'
    provenance = {"collection": collection.name, "answer_scores": selectors.answers_freshness(collection=collection)}
    response["X-Provenance"] = json.dumps(provenance, ensure_ascii=True)
    return response


@login_required
def nuggets_export(request: HttpRequest, collection_id: int) -> HttpResponse:
    collection = researcher_collection(request, collection_id)
    return _jsonl(selectors.nuggets_records(collection=collection), f"{collection.name}-nuggets.jsonl", collection)


@login_required
def assignments_export(request: HttpRequest, collection_id: int, run_id: int) -> HttpResponse:
    collection = researcher_collection(request, collection_id)
    run = get_object_or_404(Run, pk=run_id, collection=collection)
    records = selectors.assignment_records(collection=collection, run=run)
    return _jsonl(records, f"{run.tag}-assignments.jsonl", collection)


@login_required
def answers_export(request: HttpRequest, collection_id: int, run_id: int) -> HttpResponse:
    collection = researcher_collection(request, collection_id)
    run = get_object_or_404(Run, pk=run_id, collection=collection)
    return _jsonl(selectors.answer_records(run=run), f"{run.tag}-answers.jsonl", collection)
