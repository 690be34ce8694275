"""The assessor's pages: the start page, the judging page, one document's panel and the save endpoint it posts to.

The judging page is server-rendered and works without JavaScript (each grade is a form button); judge.js turns it
into the keyboard-first page: saves go out in the background and are retried until stored, documents are
prefetched, and the position survives a reload.
"""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from config.api_errors import error_answer
from judging import selectors, services
from judging.datasets.services import document_text_fetch
from judging.forms import JudgmentSaveForm
from judging.highlighting import document_blocks, query_terms
from judging.machines import selectors as verifying
from judging.models import Document, PoolItem, Topic
from judging.ordering.core.orders import is_adaptive
from judging.permissions import assigned_topic
from judging.preferences import selectors as preferring
from judging.quality import selectors as checking
from judging.quality.services import entries
from judging.quality.services import pauses as quality
from judging.rag.selectors import answers as answer_selectors

BINARY_KEYS = {"n": 0, "r": 1}


@login_required
@require_GET
def my_assignments(request: HttpRequest) -> HttpResponse:
    """Start page: each assignment's progress and time, the guidelines, and time left at the assessor's own pace."""
    items = selectors.assignments_for_assessor(assessor_id=request.user.id)
    pace = selectors.assessor_pace(assessor_id=request.user.id)
    remaining = sum(a.total - a.judged for a in items)
    collections = list({a.topic.collection_id: a.topic.collection for a in items}.values())
    answered = answer_selectors.answered_topics(topic_ids=[a.topic_id for a in items])
    for assignment in items:
        assignment.answers = answered.get(assignment.topic_id, 0)
        assignment.by_preferences = preferring.by_preferences(assignment.topic.collection)
    context = {
        "assignments": items,
        "collections": collections,
        "seconds_spent": sum(a.seconds for a in items),
        "pace": pace,
        "seconds_left": pace * remaining if pace is not None else None,
        "remaining": remaining,
    }
    return render(request, "judging/assignments.html", context)


def _pool_item(topic: Topic, document_id: int) -> PoolItem:
    """The topic's pool item for a document; 404 for a document of another topic or collection."""
    return get_object_or_404(PoolItem.objects.select_related("document"), topic=topic, document_id=document_id)


def _document_context(topic: Topic, item: PoolItem) -> dict:
    collection = topic.collection
    item.document.collection = collection  # the one already read: the fetch below looks at its dataset
    unavailable = document_text_fetch(document=item.document)  # a document pooled before its text was imported
    post_editing = verifying.post_editing(collection)
    return {
        "topic": topic,
        "document": item.document,
        "blocks": document_blocks(item.document.body, query_terms(topic.title)),
        "pool_item": None if collection.blind else item,
        "machine": verifying.machine_label(topic=topic, document_id=item.document_id) if post_editing else None,
        "unavailable": unavailable,
    }


def _grade_keys(topic: Topic, grades) -> dict[str, int]:
    keys = {str(g.value): g.value for g in grades}
    if topic.collection.max_grade == 1:
        keys.update(BINARY_KEYS)
    return keys


@login_required
@require_GET
def judge(request: HttpRequest, topic_id: int) -> HttpResponse:
    """The judging page, opened at `?doc=ID` or at the first document the assessor has not judged yet."""
    topic = assigned_topic(request.user, topic_id)
    page = checking.judging_page_queue(assessor_id=request.user.id, topic=topic)
    repeating = (
        checking.repeats_waiting(assessor_id=request.user.id, topic_ids=[topic.id])
        if checking.quality_settings(topic.collection).repeat_rate
        else set()
    )
    queue = page.entries
    grades = list(topic.collection.grades.all())
    wanted = request.GET.get("doc", "")
    named = [i for i, e in enumerate(queue) if str(e["id"]) == wanted]  # a repeated document: its waiting entry
    start = next((i for i in named if not queue[i]["judged"]), named[0] if named else None)
    if start is None:
        start = next((i for i, e in enumerate(queue) if not e["judged"]), len(queue))
    item = _pool_item(topic, queue[start]["id"]) if start < len(queue) else None
    judged = page.judged
    paused = checking.pausing(topic.collection) and checking.open_pause(
        collection_id=topic.collection_id, assessor_id=request.user.id
    )
    context = {
        "paused": quality.PAUSED_MESSAGE if paused else None,
        "next_topic": selectors.next_assigned_topic(assessor_id=request.user.id, after=topic),
        "topic": topic,
        "collection": topic.collection,
        "grades": grades,
        "queue": queue,
        "position": start,
        "judged": judged,
        "total": page.total,
        "listed": sum(e["judged"] for e in queue),
        "shown_position": min(start + 1 + max(judged - sum(e["judged"] for e in queue), 0), page.total),
        "percent": round(100 * judged / page.total) if page.total else 100,
        "config": {
            "topic": topic.id,
            "start": start,
            "queue": queue,
            "progress": {"judged": judged, "total": page.total},
            "adaptive": is_adaptive(topic.collection.judging_order),
            "checking": checking.checks_on(topic.collection),
            "verifying": verifying.verified_judge_id(topic.collection) is not None,
            "pausing": checking.pausing(topic.collection),
            "keys": _grade_keys(topic, grades),
            "labels": {g.value: g.label for g in grades},
            "undo": [
                {**step, "key": checking.entry_key(request.user.id, topic.id, step["id"])}
                for step in selectors.undo_history(assessor_id=request.user.id, topic=topic)
                if (topic.id, step["id"]) not in repeating
            ],
            "saveUrl": reverse("judging:judge_save", args=[topic.id, 0]),
            "documentUrl": reverse("judging:judge_document", args=[topic.id, 0]),
        },
        **(_document_context(topic, item) if item else {}),
    }
    return render(request, "judging/judge.html", context)


@login_required
@require_GET
def judge_document(request: HttpRequest, topic_id: int, document_id: int) -> HttpResponse:
    """One document's panel (what judge.js fetches and prefetches)."""
    topic = assigned_topic(request.user, topic_id)
    return render(request, "judging/_document.html", _document_context(topic, _pool_item(topic, document_id)))


def _wants_json(request: HttpRequest) -> bool:
    return "application/json" in request.headers.get("Accept", "")


@login_required
@require_POST
def judge_save(request: HttpRequest, topic_id: int, document_id: int) -> HttpResponse:
    """Saves one judgment (`grade`, or an empty grade with `cannot_judge_reason`; `note`; `seconds_total`), or with
    `action=delete` removes it (undoing a first judgment). Answers JSON to the page's script, a redirect to a form.
    The write service checks the assignment and the pool (403)."""
    topic = get_object_or_404(selectors.topics_with_settings(), pk=topic_id)
    # Without its text: a saved judgment needs the document's id and docno, and a web page's body is tens of KB.
    documents = Document.objects.only("id", "collection_id", "docno")
    document = get_object_or_404(documents, pk=document_id, collection_id=topic.collection_id)
    form = JudgmentSaveForm(request.POST)
    if not form.is_valid():
        field, errors = next(iter(form.errors.items()))
        return error_answer(400, f"{field.replace('_', ' ')}: {' '.join(errors)}", fields={field: list(errors)})
    data = form.cleaned_data
    try:
        saved = entries.entry_judge(
            assessor=request.user,
            topic=topic,
            document=document,
            entry=data["entry"],
            grade=data["grade"],
            note=data["note"],
            cannot_judge_reason=data["cannot_judge_reason"],
            seconds_total=data["seconds_total"],
            delete=data["action"] == "delete",
        )
    except ValidationError as error:
        fields = error.message_dict if hasattr(error, "error_dict") else None
        return error_answer(400, "; ".join(error.messages), fields=fields)
    except services.ItemFull as error:
        return error_answer(409, str(error), code=error.code)
    except PermissionDenied as error:
        return error_answer(403, str(error), code=getattr(error, "code", None))
    paused, checking_on = saved.paused, checking.checks_on(topic.collection)
    if _wants_json(request):
        answer: dict = {"saved": True}
        if paused:
            answer["paused"] = quality.PAUSED_MESSAGE  # this judgment is kept; the next one is refused
        if is_adaptive(topic.collection.judging_order) or checking_on:  # the next document: decided, or due
            page = checking.judging_page_queue(assessor_id=request.user.id, topic=topic)
            answer["upcoming"] = checking.upcoming_of(page)
            if checking_on:  # counted as the page counts, every save alike: a check is never singled out
                answer["progress"] = {"judged": page.judged, "total": page.total}
        if verifying.verified_judge_id(topic.collection) is not None and data["action"] != "delete":
            # Blind verification: the machine's grade only once the person's own grade is saved (post-editing showed
            # it); a "can't judge" gives no grade, so it shows nothing. Checks answer alike, so none stands out.
            graded = data["grade"] is not None
            answer["machine"] = verifying.machine_label(topic=topic, document_id=document.id) if graded else None
        return JsonResponse(answer)
    return redirect("judging:judge", topic_id=topic.id)
