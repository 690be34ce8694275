"""The adjudication queue: items on which assessors disagree, their labels side by side, and the admin's decision."""

from __future__ import annotations

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST

from .. import progress, services
from ..forms import AdjudicateForm
from ..models import Collection, Document, Topic
from ..permissions import admin_required


@admin_required
def queue(request: HttpRequest, collection_id: int) -> HttpResponse:
    collection = get_object_or_404(Collection.objects.prefetch_related("grades"), pk=collection_id)
    settled = request.GET.get("settled") == "1"
    items = progress.disputed_items(collection=collection, include_settled=settled)
    context = {"collection": collection, "items": items, "settled": settled, "grades": collection.grades.all()}
    return render(request, "judging/adjudication.html", context)


@admin_required
@require_POST
def decide(request: HttpRequest, topic_id: int, document_id: int) -> HttpResponse:
    """Records the admin's label; it becomes the item's consensus label whatever the consensus method."""
    topic = get_object_or_404(Topic.objects.select_related("collection"), pk=topic_id)
    document = get_object_or_404(Document, pk=document_id, collection_id=topic.collection_id)
    form = AdjudicateForm(request.POST)
    if form.is_valid():
        try:
            services.adjudication_record(
                topic=topic,
                document=document,
                grade=form.cleaned_data["grade"],
                adjudicator=request.user,
                note=form.cleaned_data["note"],
            )
            messages.success(request, f"{topic.number} / {document.docno}: grade {form.cleaned_data['grade']}.")
        except ValidationError as error:
            messages.error(request, "; ".join(error.messages))
    else:
        messages.error(request, "Choose a grade.")
    return redirect("judging:adjudication", collection_id=topic.collection_id)
