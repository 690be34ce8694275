"""The answers pages: an admin's RAG runs (import, machine nuggets and assignments, the topics' nuggets), an
assessor's answers to a topic, and the page judging one answer: its nuggets' assignment and its citations' support,
keyboard-first, blind to runs and to other assessors."""

from __future__ import annotations

from django.contrib import messages
from django.core.exceptions import PermissionDenied, ValidationError
from django.db.models import Count, Q
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST

from config.api_errors import error_answer
from judging.datasets.services import document_text_fetch
from judging.models import ROLE_ADMIN, ROLE_ASSESSOR, Assignment, Collection, Document, Topic
from judging.permissions import admin_required, role_required, user_roles
from judging.rag.forms import AnswerRunImportForm, MachineNuggetsForm
from judging.rag.models.answers import Answer, SupportLabel
from judging.rag.models.nuggets import AssignmentLabel, Nugget
from judging.rag.selectors import answers as selectors
from judging.rag.services import answers as services
from judging.rag.services import assignments, machine

assessor_or_admin = role_required(ROLE_ASSESSOR, ROLE_ADMIN)


def topic_for(request: HttpRequest, topic: Topic) -> Topic:
    """The topic, for an admin or an assessor it is assigned to; anyone else is refused."""
    if ROLE_ADMIN in user_roles(request.user):
        return topic
    if not Assignment.objects.filter(assessor=request.user, topic=topic).exists():
        raise PermissionDenied("this topic is not assigned to you")
    return topic


@admin_required
def answers(request: HttpRequest, collection_id: int) -> HttpResponse:
    """The collection's RAG runs and their import, its topics' nuggets, and a machine judge's nugget work."""
    collection = get_object_or_404(Collection, pk=collection_id)
    form = AnswerRunImportForm(request.POST or None, request.FILES or None)
    machine_form = MachineNuggetsForm(collection=collection)
    problems = []
    if request.method == "POST" and form.is_valid():
        upload = form.cleaned_data["file"]
        try:
            upload.seek(0)
            result = services.answer_runs_import(
                collection=collection, file=upload.name, lines=upload.file, owner=request.user,
                create_missing=form.cleaned_data["create_missing"],
            )  # fmt: skip
        except UnicodeDecodeError:
            problems = [f"{upload.name} is not UTF-8 text"]
        except ValidationError as error:
            problems = error.messages
        else:
            made = result["created_topics"] + result["created_documents"]
            messages.success(
                request,
                f"Imported {result['answers']} answers of {len(result['runs'])} run(s)"
                + (f"; {made} placeholder topics and segments created" if made else "")
                + ".",
            )
            return redirect("judging:answers", collection_id=collection.id)
    topics = (
        Topic.objects.filter(collection=collection)
        .annotate(
            answer_count=Count("answers", distinct=True),
            nugget_count=Count("nuggets", filter=Q(nuggets__removed=False, nuggets__accepted=True), distinct=True),
            proposed_count=Count("nuggets", filter=Q(nuggets__removed=False, nuggets__accepted=False), distinct=True),
        )
        .filter(answer_count__gt=0)
        .order_by("id")
    )
    context = {
        "collection": collection,
        "form": form,
        "machine_form": machine_form,
        "problems": problems,
        "runs": selectors.answer_runs(collection=collection),
        "topics": topics,
    }
    return render(request, "judging/rag/answers.html", context, status=400 if problems else 200)


@admin_required
@require_POST
def answers_machine(request: HttpRequest, collection_id: int) -> HttpResponse:
    """Starts a machine judge proposing nuggets (`propose`) or assigning them to the answers (`assign`)."""
    collection = get_object_or_404(Collection, pk=collection_id)
    form = MachineNuggetsForm(request.POST, collection=collection)
    if not form.is_valid():
        messages.error(request, "Choose a chat-completions machine judge of this collection.")
        return redirect("judging:answers", collection_id=collection.id)
    starts = {"propose": machine.nuggets_propose_start, "assign": machine.nuggets_assign_start,
              "support": machine.support_judge_start}  # fmt: skip
    start = starts.get(request.POST.get("work", ""))
    if start is None:
        messages.error(request, "Choose what the machine should do: propose, assign or judge support.")
        return redirect("judging:answers", collection_id=collection.id)
    try:
        job = start(judge=form.cleaned_data["judge"], created_by=request.user)
    except ValidationError as error:
        messages.error(request, " ".join(error.messages))
        return redirect("judging:answers", collection_id=collection.id)
    return redirect("judging:job", job_id=job.id)


@assessor_or_admin
def topic_answers(request: HttpRequest, topic_id: int) -> HttpResponse:
    """A topic's answers for the assessor: blind numbers, their progress on each."""
    topic = topic_for(request, get_object_or_404(Topic.objects.select_related("collection"), pk=topic_id))
    rows = selectors.assessor_answers(topic=topic, assessor_id=request.user.id)
    return render(request, "judging/rag/topic_answers.html", {"topic": topic, "rows": rows})


def _answer(request: HttpRequest, answer_id: int) -> Answer:
    answer = get_object_or_404(Answer.objects.select_related("topic__collection"), pk=answer_id)
    topic_for(request, answer.topic)
    return answer


@assessor_or_admin
def answer_judge(request: HttpRequest, answer_id: int) -> HttpResponse:
    """One answer: its sentences with their cited segments beside the topic's nuggets, each labelled by a key."""
    answer = _answer(request, answer_id)
    if answer.topic.collection.ir_datasets_id:  # cited segments pooled before their text was imported
        for document in Document.objects.filter(pk__in=answer.references, body="", title="").select_related(
            "collection"
        ):
            document_text_fetch(document=document)
    context = {
        "answer": answer,
        "topic": answer.topic,
        "collection": answer.topic.collection,
        "labels": [(v, label) for v, label in AssignmentLabel.choices if v != AssignmentLabel.FAILED],
        "support_labels": SupportLabel.choices,
        **selectors.answer_for_judging(answer=answer, assessor_id=request.user.id),
    }
    return render(request, "judging/rag/answer_judge.html", context)


def _answered(request: HttpRequest, answer: Answer, anchor: str, error: ValidationError | None = None):
    """JSON for the page's script, a redirect back to the item for a plain form."""
    if request.headers.get("Accept") == "application/json":
        if error is not None:
            return error_answer(400, " ".join(error.messages))
        return JsonResponse({"saved": True})
    if error is not None:
        messages.error(request, " ".join(error.messages))
    return redirect(reverse("judging:answer_judge", args=[answer.id]) + f"#{anchor}")


@assessor_or_admin
@require_POST
def answer_assign(request: HttpRequest, answer_id: int) -> HttpResponse:
    answer = _answer(request, answer_id)
    nugget = get_object_or_404(Nugget, pk=request.POST.get("nugget") or 0, topic_id=answer.topic_id)
    try:
        assignments.assignment_record(
            assessor=request.user, answer=answer, nugget=nugget, label=request.POST.get("label", "")
        )
    except ValidationError as error:
        return _answered(request, answer, f"nugget-{nugget.id}", error)
    return _answered(request, answer, f"nugget-{nugget.id}")


@assessor_or_admin
@require_POST
def answer_support(request: HttpRequest, answer_id: int) -> HttpResponse:
    answer = _answer(request, answer_id)
    try:
        sentence, document = int(request.POST.get("sentence", "")), int(request.POST.get("document", ""))
    except ValueError:
        return _answered(request, answer, "support", ValidationError("give a sentence and a cited segment"))
    try:
        services.support_record(
            assessor=request.user, answer=answer, sentence=sentence, document_id=document,
            label=request.POST.get("label", ""),
        )  # fmt: skip
    except ValidationError as error:
        return _answered(request, answer, f"cite-{sentence}-{document}", error)
    return _answered(request, answer, f"cite-{sentence}-{document}")
