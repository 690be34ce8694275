"""The assessor's comparison page: the topic and two documents side by side (stacked on a phone), answered by key or
tap (left better, right better, equally good, both not relevant); the pair comes from the assessor's tournament
(`judging.preferences.selectors`). A plain form posting back and redirecting: it works without JavaScript, compare.js
adds keys."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_GET, require_POST

from judging import selectors
from judging.highlighting import document_blocks, query_terms
from judging.models import Document, PoolItem
from judging.permissions import assigned_topic
from judging.preferences import selectors as preferring
from judging.preferences import services as preferences
from judging.preferences.models import Preference
from judging.quality import selectors as quality_selectors
from judging.quality.services import pauses as quality

ANSWERS = {"left": "better", "right": "better", "equal": "equal", "neither": "neither"}


def _shown(topic, document_id: int) -> dict:
    document = get_object_or_404(Document, pk=document_id, collection_id=topic.collection_id)
    return {"document": document, "blocks": document_blocks(document.body, query_terms(topic.title))}


@login_required
@require_GET
def compare(request: HttpRequest, topic_id: int) -> HttpResponse:
    topic = assigned_topic(request.user, topic_id)
    standing = preferring.standing(assessor_id=request.user.id, topic=topic)
    left = right = None
    if standing.next_pair is not None:
        left_id, right_id = preferring.sides(request.user.id, topic.id, standing.next_pair)
        left, right = _shown(topic, left_id), _shown(topic, right_id)
    docnos = dict(Document.objects.filter(pk__in=standing.top).values_list("pk", "docno"))
    made = Preference.objects.filter(assessor=request.user, topic=topic).count()
    paused = quality_selectors.pausing(topic.collection) and quality_selectors.open_pause(
        collection_id=topic.collection_id, assessor_id=request.user.id
    )
    context = {
        "topic": topic,
        "collection": topic.collection,
        "left": left,
        "right": right,
        "top": [docnos[d] for d in standing.top],
        "wanted": min(
            preferring.preference_settings(topic.collection).preference_top,
            PoolItem.objects.filter(topic=topic).count(),
        ),
        "comparisons_left": standing.left,
        "made": made,
        "paused": quality.PAUSED_MESSAGE if paused else None,
        "next_topic": selectors.next_assigned_topic(assessor_id=request.user.id, after=topic),
    }
    return render(request, "judging/compare.html", context)


@login_required
@require_POST
def compare_save(request: HttpRequest, topic_id: int) -> HttpResponse:
    """Records the answer for the pair shown (`left`, `right` document ids; `answer` left, right, equal or neither;
    `seconds`), or with `undo` takes the assessor's latest comparison of the topic back."""
    topic = assigned_topic(request.user, topic_id)
    if "undo" in request.POST:
        latest = Preference.objects.filter(assessor=request.user, topic=topic).order_by("-updated_at", "-id").first()
        if latest is not None:
            preferences.preference_delete(preference=latest, changed_by=request.user)
        return redirect("judging:compare", topic_id=topic.id)
    answer = request.POST.get("answer", "")
    try:
        shown = [int(request.POST.get(side, "")) for side in ("left", "right")]
        seconds = min(max(float(request.POST.get("seconds") or 0), 0.0), 1e6)
    except ValueError:
        messages.error(request, "That comparison was not understood; nothing was saved. Please answer again.")
        return redirect("judging:compare", topic_id=topic.id)
    documents = [get_object_or_404(Document, pk=pk, collection_id=topic.collection_id) for pk in shown]
    better = {"left": documents[0], "right": documents[1]}.get(answer)
    try:
        preferences.preference_record(
            assessor=request.user,
            topic=topic,
            documents=(documents[0], documents[1]),
            answer=ANSWERS.get(answer, answer),
            better=better,
            seconds=seconds,
        )
    except (ValidationError, PermissionDenied) as error:
        messages.error(request, f"Not saved: {'; '.join(getattr(error, 'messages', [str(error)]))}")
    return redirect("judging:compare", topic_id=topic.id)
