"""The per-assessor reliability table: a partial the campaign page loads, a page of its own, CSV and JSON."""

from __future__ import annotations

from dataclasses import asdict

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render

from evaluation.agreement import reliability as reads
from evaluation.files import collection_slug
from evaluation.pages import researcher_collection
from judging.permissions import sees_assessors


@login_required
def reliability(request: HttpRequest, collection_id: int) -> HttpResponse:
    collection = researcher_collection(request, collection_id)
    rows = reads.assessor_reliability(collection=collection, reveal=sees_assessors(request.user, collection))
    wanted = request.GET.get("format")
    if wanted == "json":
        return JsonResponse({"collection": collection.name, "assessors": [asdict(row) for row in rows]})
    if wanted == "csv":
        response = HttpResponse(reads.reliability_csv(rows), content_type="text/csv; charset=utf-8")
        response["Content-Disposition"] = f'attachment; filename="{collection_slug(collection)}-reliability.csv"'
        return response
    template = "evaluation/_reliability.html" if request.htmx else "evaluation/reliability.html"
    return render(request, template, {"collection": collection, "rows": rows})
