"""Pages of the evaluation app: the leaderboard with freshness and agreement, and the export downloads."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render

from judging.models import Collection
from judging.permissions import user_roles

from . import downloads, selectors


@login_required
def leaderboard_index(request: HttpRequest) -> HttpResponse:
    collection = Collection.objects.order_by("id").first()
    if collection is None:
        return render(request, "evaluation/empty.html")
    return redirect("evaluation:leaderboard", collection_id=collection.id)


@login_required
def leaderboard(request: HttpRequest, collection_id: int) -> HttpResponse:
    collection = get_object_or_404(Collection, pk=collection_id)
    measures = list(collection.measures)
    context = {
        "collection": collection,
        "collections": Collection.objects.order_by("name"),
        "measures": measures,
        "rows": selectors.leaderboard(collection_id=collection.id, measures=measures),
        "freshness": selectors.collection_freshness(collection_id=collection.id),
        "agreement": selectors.collection_agreement(collection_id=collection.id),
    }
    return render(request, "evaluation/leaderboard.html", context)


def _researcher_collection(request: HttpRequest, collection_id: int) -> Collection:
    if not user_roles(request.user) & {"admin", "researcher"}:
        raise PermissionDenied("qrels and results are for researchers and admins")
    return get_object_or_404(Collection, pk=collection_id)


@login_required
def qrels_download(request: HttpRequest, collection_id: int) -> HttpResponse:
    """The qrels file (parameters as in `downloads`); 400 with the reason for a bad parameter."""
    collection = _researcher_collection(request, collection_id)
    try:
        return downloads.qrels_download(collection, request.GET, request.user)
    except downloads.BadExportRequest as error:
        return JsonResponse({"error": str(error)}, status=400)


@login_required
def results_download(request: HttpRequest, collection_id: int) -> HttpResponse:
    collection = _researcher_collection(request, collection_id)
    try:
        return downloads.results_download(collection, request.GET)
    except downloads.BadExportRequest as error:
        return JsonResponse({"error": str(error)}, status=400)
