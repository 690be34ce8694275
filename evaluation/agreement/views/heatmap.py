"""The agreement page: the assessor x assessor kappa heatmap and the confusion matrices behind it (as tables: one
image per pair was dozens of plots drawn per request, each redrawn after every change)."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from evaluation import selectors
from evaluation.analysis import selectors as analysis
from evaluation.pages import researcher_collection
from judging.permissions import sees_assessors


@login_required
def agreement(request: HttpRequest, collection_id: int) -> HttpResponse:
    collection = researcher_collection(request, collection_id)
    matrices = analysis.agreement_matrices(collection=collection, reveal=sees_assessors(request.user, collection))
    context = {
        "collection": collection,
        "matrices": matrices,
        "pairs": [
            (row, column, list(zip(matrices.categories, matrices.confusion[row, column], strict=True)))
            for row, column in sorted(matrices.confusion)
        ]
        if matrices
        else [],
        "statistics": selectors.collection_agreement_labelled(collection_id=collection.id),
        "fresh": selectors.collection_agreement_fresh(collection_id=collection.id),
    }
    return render(request, "evaluation/agreement.html", context)
