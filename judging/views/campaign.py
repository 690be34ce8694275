"""Pages of the judging app: role-based start pages, the assessor's assignments and judging page, the dashboard.

Views only parse input, check access and call one service or selector.
"""

from __future__ import annotations

from django.contrib.admin.views.decorators import staff_member_required
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.http import HttpRequest, HttpResponse, HttpResponseBadRequest
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST

from . import jobs, selectors, services, tasks
from .forms import ImportForm
from .models import ROLE_ASSESSOR, Assignment, Collection, Document, Job, Judgment, Topic
from .uploads import upload_store


def home(request: HttpRequest) -> HttpResponse:
    """Sends each role to its start page."""
    if not request.user.is_authenticated:
        return redirect("login")
    if request.user.is_staff:
        return redirect("judging:dashboard")
    if request.user.groups.filter(name=ROLE_ASSESSOR).exists():
        return redirect("judging:assignments")
    return redirect("evaluation:leaderboard_index")


@login_required
def assignments(request: HttpRequest) -> HttpResponse:
    items = selectors.assignments_for_assessor(assessor_id=request.user.id)
    return render(request, "judging/assignments.html", {"assignments": items})


def _assigned_topic(request: HttpRequest, topic_id: int) -> Topic:
    topic = get_object_or_404(Topic.objects.select_related("collection"), pk=topic_id)
    if not Assignment.objects.filter(assessor=request.user, topic=topic).exists():
        raise PermissionDenied("this topic is not assigned to you")
    return topic


def _next_item(request: HttpRequest, topic: Topic):
    judged = Judgment.objects.filter(assessor=request.user, topic=topic).values_list("document_id", flat=True)
    queue = selectors.pool_queue(topic_id=topic.id)
    total = queue.count()
    done = judged.count()
    item = queue.exclude(document_id__in=judged).first()
    return item, done, total


@login_required
def judge(request: HttpRequest, topic_id: int) -> HttpResponse:
    topic = _assigned_topic(request, topic_id)
    item, done, total = _next_item(request, topic)
    context = {
        "topic": topic,
        "item": item,
        "done": done,
        "total": total,
        "grades": topic.collection.grades.all(),
        "percent": round(100 * done / total) if total else 100,
    }
    template = "judging/_judge_panel.html" if request.htmx else "judging/judge.html"
    return render(request, template, context)


@login_required
@require_POST
def judge_document(request: HttpRequest, topic_id: int, document_id: int) -> HttpResponse:
    topic = _assigned_topic(request, topic_id)
    document = get_object_or_404(Document, pk=document_id, collection_id=topic.collection_id)
    raw_grade = request.POST.get("grade", "")
    try:
        grade = int(raw_grade) if raw_grade != "" else None
        services.judgment_record(
            assessor=request.user,
            topic=topic,
            document=document,
            grade=grade,
            note=request.POST.get("note", ""),
            cannot_judge_reason=request.POST.get("cannot_judge_reason", ""),
            seconds_spent=float(request.POST.get("seconds", 0) or 0),
        )
    except (ValueError, ValidationError) as error:
        return HttpResponseBadRequest(str(error))
    if request.htmx:
        return judge(request, topic_id)
    return redirect("judging:judge", topic_id=topic.id)


@staff_member_required
def dashboard(request: HttpRequest) -> HttpResponse:
    collections = Collection.objects.order_by("name")
    rows = [(c, selectors.topics_with_progress(collection_id=c.id)) for c in collections]
    return render(request, "judging/dashboard.html", {"rows": rows})


@staff_member_required
def import_upload(request: HttpRequest, collection_id: int) -> HttpResponse:
    """Upload a file to import; the import runs as a Celery task and the job page shows its progress."""
    collection = get_object_or_404(Collection, pk=collection_id)
    form = ImportForm(request.POST or None, request.FILES or None)
    if request.method == "POST" and form.is_valid():
        upload = form.cleaned_data["file"]
        path = upload_store(upload)
        kind = form.cleaned_data["kind"]
        job = jobs.job_create(kind=f"import {kind}", collection=collection, created_by=request.user)
        transaction.on_commit(
            lambda: tasks.import_file.delay(job.id, kind, str(path), upload.name, form.cleaned_data["skip_invalid"])
        )
        return redirect("judging:job", job_id=job.id)
    return render(request, "judging/import.html", {"collection": collection, "form": form})


@staff_member_required
def job(request: HttpRequest, job_id: int) -> HttpResponse:
    """A job's progress; the partial answers the page's polling until the job ends."""
    found = get_object_or_404(Job.objects.select_related("collection"), pk=job_id)
    template = "judging/_job.html" if request.htmx else "judging/job.html"
    return render(request, template, {"job": found})
