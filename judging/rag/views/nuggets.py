"""The nuggets pages: a topic's nuggets post-edited by people (add, reword, importance, merge, split, remove, accept a
machine's proposals, vote on importance) with their history and the segments to write them from; and an admin's
adjudication of the assignments people disagree on."""

from __future__ import annotations

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render

from judging.models import Collection, Topic
from judging.permissions import admin_required
from judging.rag.models.answers import Answer
from judging.rag.models.nuggets import AssignmentLabel, Importance, Nugget
from judging.rag.selectors import nuggets as selectors
from judging.rag.services import assignments, machine
from judging.rag.services import nuggets as edits
from judging.rag.views.answers import assessor_or_admin, topic_for


def _nugget(topic: Topic, value) -> Nugget:
    return get_object_or_404(Nugget, pk=value or 0, topic=topic)


def _act(request: HttpRequest, topic: Topic) -> str:
    """Carries out the posted action; returns what to say."""
    post, by = request.POST, request.user
    action = post.get("action", "")
    if action == "add":
        edits.nugget_create(topic=topic, text=post.get("text", ""), importance=post.get("importance", "okay"), by=by)
        return "Nugget added."
    if action == "accept":
        return f"{edits.nuggets_accept(topic=topic, by=by)} proposal(s) accepted."
    nugget = _nugget(topic, post.get("nugget"))
    if action == "edit":
        edits.nugget_edit(nugget=nugget, by=by, text=post.get("text"), importance=post.get("importance"))
        return "Nugget saved."
    if action == "accept_one":
        edits.nuggets_accept(topic=topic, by=by, nugget_ids=[nugget.pk])
        return "Proposal accepted."
    if action == "merge":
        edits.nuggets_merge(keep=nugget, other=_nugget(topic, post.get("other")), by=by, text=post.get("text") or None)
        return "Nuggets merged."
    if action == "split":
        edits.nugget_split(nugget=nugget, texts=post.get("parts", "").splitlines(), by=by)
        return "Nugget split."
    if action == "remove":
        edits.nugget_remove(nugget=nugget, by=by)
        return "Nugget removed."
    if action == "vote":
        edits.nugget_vote(nugget=nugget, assessor=by, importance=post.get("importance", ""))
        return "Vote recorded."
    raise ValidationError(f"unknown action {action!r}")


@assessor_or_admin
def nuggets(request: HttpRequest, topic_id: int) -> HttpResponse:
    topic = topic_for(request, get_object_or_404(Topic.objects.select_related("collection"), pk=topic_id))
    if request.method == "POST":
        try:
            messages.success(request, _act(request, topic))
        except ValidationError as error:
            messages.error(request, " ".join(error.messages))
        return redirect("judging:nuggets", topic_id=topic.id)
    rows = selectors.topic_nuggets(topic=topic, voter_id=request.user.id)
    context = {
        "topic": topic,
        "collection": topic.collection,
        "rows": rows,
        "proposals": sum(1 for r in rows if not r["nugget"].accepted),
        "importances": Importance.choices,
        "history": selectors.nugget_history(topic=topic),
        "passages": machine.relevant_passages(topic=topic, words=120),
        "answers": Answer.objects.filter(topic=topic).count(),
    }
    return render(request, "judging/rag/nuggets.html", context)


@admin_required
def nugget_adjudication(request: HttpRequest, collection_id: int) -> HttpResponse:
    """The assignments people disagree on; an admin settles each with one label."""
    collection = get_object_or_404(Collection, pk=collection_id)
    if request.method == "POST":
        answer = get_object_or_404(Answer, pk=request.POST.get("answer") or 0, topic__collection=collection)
        nugget = get_object_or_404(Nugget, pk=request.POST.get("nugget") or 0, topic_id=answer.topic_id)
        try:
            assignments.assignment_adjudicate(
                answer=answer, nugget=nugget, label=request.POST.get("label", ""), adjudicator=request.user
            )
        except ValidationError as error:
            messages.error(request, " ".join(error.messages))
        return redirect("judging:nugget_adjudication", collection_id=collection.id)
    context = {
        "collection": collection,
        "disputes": selectors.assignment_disputes(collection=collection),
        "labels": [(v, label) for v, label in AssignmentLabel.choices if v != AssignmentLabel.FAILED],
    }
    return render(request, "judging/rag/adjudication.html", context)
