"""Admins' machine-judge pages: the collection's judges (add one, change one), a prompt's preview on a real pair,
and a run started as a Job (its page shows progress, failures, tokens and time left, and can cancel it)."""

from __future__ import annotations

from django.conf import settings
from django.contrib import messages
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST

from config.forms import service_errors_shown
from judging.jobs import runner as jobs
from judging.jobs.models import Job
from judging.machines import selectors as machine_selectors
from judging.machines import services as service
from judging.machines.forms import MachineJudgeForm, MachinePreviewForm, MachineRunForm
from judging.machines.models import MachineJudge
from judging.models import Collection, PoolItem
from judging.permissions import admin_required
from judging.sources import selectors as sources

PREVIEW_CHOICES = 300


def _judges_context(collection: Collection) -> list[dict]:
    rows = []
    advisory = sources.advisory_accounts(collection=collection)
    for judge in MachineJudge.objects.filter(collection=collection).select_related("account").order_by("name"):
        replies = judge.replies.filter(configuration=judge.configuration)
        rows.append(
            {
                "judge": judge,
                "advisory": judge.account_id in advisory,
                "labelled": replies.filter(failure="").count(),
                "failed": replies.exclude(failure="").count(),
                "last_job": Job.objects.filter(task=service.MACHINE_TASK, arguments__judge_id=judge.id).first(),
                "last_reply": replies.order_by("-created_at").values_list("created_at", flat=True).first(),
                "spending": machine_selectors.judge_spending(judge=judge),
                "gullibility": machine_selectors.gullibility(judge=judge),
                "estimate": machine_selectors.run_estimate(judge=judge),
                "run_form": MachineRunForm(collection=collection, prefix=f"run{judge.id}"),
            }
        )
    return rows


@admin_required
def machine_judges(request: HttpRequest, collection_id: int) -> HttpResponse:
    """The collection's machine judges, and the form adding one."""
    collection = get_object_or_404(Collection, pk=collection_id)
    form = MachineJudgeForm(request.POST or None, collection=collection)
    if request.method == "POST" and form.is_valid():
        try:
            judge = service.machine_judge_create(
                collection=collection, name=form.cleaned_data["name"], **form.settings()
            )
        except ValidationError as error:
            service_errors_shown(form, error)
        else:
            messages.success(request, f"Machine judge {judge.name} added; it is advisory until you count it.")
            return redirect("judging:machine_judges", collection_id=collection.id)
    pooled = PoolItem.objects.filter(topic__collection=collection).count()
    context = {
        "collection": collection,
        "form": form,
        "judges": _judges_context(collection),
        "pooled": pooled,
        "limit": settings.MACHINE_GULLIBILITY_LIMIT,
    }
    return render(request, "judging/machine_judges.html", context)


@admin_required
def machine_judge_edit(request: HttpRequest, judge_id: int) -> HttpResponse:
    judge = get_object_or_404(MachineJudge.objects.select_related("collection"), pk=judge_id)
    form = MachineJudgeForm(
        request.POST or None, instance=MachineJudge.objects.get(pk=judge.pk), collection=judge.collection
    )
    form.fields["name"].disabled = True
    if request.method == "POST" and form.is_valid():
        try:
            updated = service.machine_judge_update(judge=judge, **form.settings())
        except ValidationError as error:
            service_errors_shown(form, error)
        else:
            note = "a new version: the next run asks afresh" if updated.version != judge.version else "same version"
            messages.success(request, f"Saved {updated.name} ({note}).")
            return redirect("judging:machine_judges", collection_id=judge.collection_id)
    return render(
        request, "judging/machine_judge_edit.html", {"judge": judge, "collection": judge.collection, "form": form}
    )


def _pairs(collection: Collection) -> list[tuple[str, str]]:
    items = PoolItem.objects.filter(topic__collection=collection).order_by("topic_id", "-priority", "id")
    rows = items.values_list("topic_id", "document_id", "topic__number", "document__docno")[:PREVIEW_CHOICES]
    return [(f"{t}:{d}", f"topic {number} · {docno}") for t, d, number, docno in rows]


@admin_required
def machine_judge_preview(request: HttpRequest, judge_id: int) -> HttpResponse:
    """The prompt the judge would send for a pooled pair and, when asked, the model's answer and the grade read
    from it; nothing is recorded. A template typed here is tried without being saved."""
    judge = get_object_or_404(MachineJudge.objects.select_related("collection"), pk=judge_id)
    form = MachinePreviewForm(request.POST or None, items=_pairs(judge.collection))
    preview = None
    if form.is_bound and form.is_valid():
        topic_id, document_id = (int(part) for part in form.cleaned_data["item"].split(":"))
        item = get_object_or_404(PoolItem.objects.select_related("topic", "document"), topic_id=topic_id,
                                 document_id=document_id, topic__collection=judge.collection)  # fmt: skip
        try:
            preview = service.machine_judge_preview(
                judge=judge,
                topic=item.topic,
                document=item.document,
                ask="ask" in request.POST,
                template_text=form.cleaned_data["template"] or None,
            )
        except ValidationError as error:
            service_errors_shown(form, error)
    context = {"judge": judge, "collection": judge.collection, "form": form, "preview": preview}
    return render(request, "judging/machine_judge_preview.html", context)


@admin_required
@require_POST
def machine_judge_run(request: HttpRequest, judge_id: int) -> HttpResponse:
    """Starts a run (or, with `retry_failed`, a run over the failed pairs) and shows its job."""
    judge = get_object_or_404(MachineJudge.objects.select_related("collection"), pk=judge_id)
    form = MachineRunForm(request.POST, collection=judge.collection, prefix=f"run{judge.id}")
    if not form.is_valid():
        messages.error(request, "; ".join(f"{k}: {' '.join(v)}" for k, v in form.errors.items()))
        return redirect("judging:machine_judges", collection_id=judge.collection_id)
    try:
        job = service.machine_judge_run_start(
            judge=judge,
            topic_ids=[t.id for t in form.cleaned_data["topics"]],
            limit=form.cleaned_data["limit"],
            retry_failed=bool(request.POST.get("retry_failed")),
            created_by=request.user,
        )
    except ValidationError as error:
        messages.error(request, " ".join(error.messages))
        return redirect("judging:machine_judges", collection_id=judge.collection_id)
    return redirect("judging:job", job_id=job.id)


@admin_required
@require_POST
def machine_judge_probe(request: HttpRequest, judge_id: int) -> HttpResponse:
    """Starts the judge's gullibility probes and shows their job."""
    judge = get_object_or_404(MachineJudge.objects.select_related("collection"), pk=judge_id)
    try:
        job = service.machine_judge_probe_start(
            judge=judge, count=int(request.POST.get("count") or 20), created_by=request.user
        )
    except (ValidationError, ValueError) as error:
        messages.error(request, " ".join(getattr(error, "messages", [str(error)])))
        return redirect("judging:machine_judges", collection_id=judge.collection_id)
    return redirect("judging:job", job_id=job.id)


@admin_required
@require_POST
def job_cancel(request: HttpRequest, job_id: int) -> HttpResponse:
    found = get_object_or_404(Job, pk=job_id)
    if jobs.job_cancel(job=found):
        messages.info(request, "Cancelling: the job stops at its next step and keeps what it did.")
    return redirect("judging:job", job_id=found.id)
