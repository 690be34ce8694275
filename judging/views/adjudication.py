"""The adjudication queue: items on which assessors disagree, their labels side by side, and the admin's decision."""

from __future__ import annotations

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST

from judging import progress, services
from judging.forms import AdjudicateForm
from judging.highlighting import document_blocks, query_terms
from judging.models import Collection, Document, Topic
from judging.permissions import admin_required


@admin_required
def queue(request: HttpRequest, collection_id: int) -> HttpResponse:
    collection = get_object_or_404(Collection.objects.prefetch_related("grades"), pk=collection_id)
    settled = request.GET.get("settled") == "1"
    items = progress.disputed_items(collection=collection, include_settled=settled)
    context = {"collection": collection, "items": items, "settled": settled, "grades": collection.grades.all()}
    return render(request, "judging/adjudication.html", context)


def _next_item_context(collection: Collection) -> dict:
    """The first open disagreement with what the admin needs to decide it: the topic, the document's text and every
    assessor's grade, note and time."""
    items = progress.disputed_items(collection=collection, limit=1)
    context = {"collection": collection, "grades": list(collection.grades.all()), "item": None}
    if items:
        item = items[0]
        document = Document.objects.get(pk=item.document_id)
        context |= {
            "item": item,
            "document": document,
            "blocks": document_blocks(document.body, query_terms(item.topic.title)),
            "open_count": progress.disputed_count(collection=collection),
        }
    return context


@admin_required
def one_by_one(request: HttpRequest, collection_id: int) -> HttpResponse:
    """Open disagreements one at a time: decide with a number key (or a tap) and the next one appears in place."""
    collection = get_object_or_404(Collection.objects.prefetch_related("grades"), pk=collection_id)
    return render(request, "judging/adjudicate_item.html", _next_item_context(collection))


@admin_required
@require_POST
def decide(request: HttpRequest, topic_id: int, document_id: int) -> HttpResponse:
    """Records the admin's label; it becomes the item's consensus label whatever the consensus method. From the
    one-by-one page (htmx) it answers the next open item's panel."""
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
    if request.htmx:
        context = _next_item_context(Collection.objects.prefetch_related("grades").get(pk=topic.collection_id))
        return render(request, "judging/_adjudication_item.html", context)
    return redirect("judging:adjudication", collection_id=topic.collection_id)
