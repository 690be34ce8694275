"""Pages of the evaluation app: the leaderboard with freshness and agreement."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render

from judging.models import Collection

from . import selectors


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
