"""Admins' pages: where each role starts, the campaign dashboard, file imports and their jobs."""

from __future__ import annotations

from django.contrib.admin.views.decorators import staff_member_required
from django.db import transaction
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render

from .. import jobs, selectors, tasks
from ..forms import ImportForm
from ..models import ROLE_ASSESSOR, Collection, Job
from ..uploads import upload_store


def home(request: HttpRequest) -> HttpResponse:
    """Sends each role to its start page."""
    if not request.user.is_authenticated:
        return redirect("login")
    if request.user.is_staff:
        return redirect("judging:dashboard")
    if request.user.groups.filter(name=ROLE_ASSESSOR).exists():
        return redirect("judging:assignments")
    return redirect("evaluation:leaderboard_index")


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
