"""Admins' pages: where each role starts, the dashboards, file imports, pool builds and their jobs."""

from __future__ import annotations

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.core.paginator import Paginator
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST

from judging import progress, selectors
from judging.datasets.forms import DatasetForm
from judging.forms import ImportForm, PoolForm
from judging.imports import services as imports
from judging.jobs import kinds as job_kinds
from judging.jobs import runner as jobs
from judging.jobs.models import Job, JobState
from judging.models import ROLE_ASSESSOR, ROLE_PARTICIPANT, ROLE_RESEARCHER, Collection
from judging.ordering.core import stopping
from judging.permissions import admin_required, reads_for_researchers_writes_for_admins, user_roles
from judging.services import pools

DASHBOARD_REFRESH_SECONDS = 5
TOPICS_PER_PAGE = 100


def home(request: HttpRequest) -> HttpResponse:
    """Sends each role to its start page."""
    if not request.user.is_authenticated:
        return redirect("login")
    if request.user.is_staff:
        return redirect("judging:dashboard")
    roles = user_roles(request.user)
    if ROLE_ASSESSOR in roles:
        return redirect("judging:assignments")
    if ROLE_PARTICIPANT in roles and not roles & {ROLE_RESEARCHER}:
        return redirect("judging:tracks")
    only = list(Collection.objects.values_list("id", flat=True)[:2])
    if len(only) == 1:  # one collection (the demo's): its leaderboard, not a list of one
        return redirect("evaluation:leaderboard", collection_id=only[0])
    return redirect("evaluation:leaderboard_index")


@admin_required
def dashboard(request: HttpRequest) -> HttpResponse:
    """Every collection with its overall progress; each links to its campaign page."""
    return render(request, "judging/dashboard.html", {"collections": selectors.collections_overview()})


@admin_required
def campaign(request: HttpRequest, collection_id: int) -> HttpResponse:
    """One campaign's dashboard; its figures are a partial the page polls, so a judgment shows within seconds."""
    collection = get_object_or_404(Collection, pk=collection_id)
    figures = progress.campaign_progress(collection=collection)
    context = {
        "collection": collection,
        "figures": figures,
        "topics": Paginator(figures.topics, TOPICS_PER_PAGE).get_page(request.GET.get("page")),
        "refresh": DASHBOARD_REFRESH_SECONDS,
    }
    template = "judging/_campaign.html" if request.htmx else "judging/campaign.html"
    return render(request, template, context)


@reads_for_researchers_writes_for_admins
def campaign_standing(request: HttpRequest, collection_id: int) -> HttpResponse:
    """Where the campaign stands and whether to stop judging (a partial the campaign page loads and refreshes:
    the estimate draws plausible completions of the qrels, too slow for the page's every-5-seconds poll)."""
    collection = get_object_or_404(Collection, pk=collection_id)
    standing = selectors.collection_standing(
        collection=collection, rankings=selectors.collection_rankings(collection_id=collection.id)
    )
    context = {
        "collection": collection,
        "standing": standing,
        "saved_judgments": standing.unjudged * collection.assessors_per_item,
        "figures": selectors.standing_figures(collection=collection, standing=standing),
        "tau_threshold": stopping.TAU_THRESHOLD,
        "stable_percent": round(100 * stopping.STABLE_SHARE),
    }
    return render(request, "judging/_standing.html", context)


@admin_required
def import_upload(request: HttpRequest, collection_id: int) -> HttpResponse:
    """Upload a file to import; the import runs as a Celery task and the job page shows its progress."""
    collection = get_object_or_404(Collection, pk=collection_id)
    form = ImportForm(request.POST or None, request.FILES or None)
    if request.method == "POST" and form.is_valid():
        try:
            job = imports.import_start(
                collection=collection,
                kind=form.cleaned_data["kind"],
                files=form.cleaned_data["file"],
                skip_invalid=form.cleaned_data["skip_invalid"],
                created_by=request.user,
                source=form.cleaned_data["source"],
                role=form.cleaned_data["role"] or "counted",
                model_family=form.cleaned_data["model_family"],
                create_missing=form.cleaned_data["create_missing"],
                pooled_only=form.cleaned_data["pooled_only"],
                top_k=form.cleaned_data["top_k"],
            )
        except ValidationError as error:
            form.add_error(None, error)
        else:
            return redirect("judging:job", job_id=job.id)
    context = {"collection": collection, "form": form, "dataset_form": DatasetForm()}
    return render(request, "judging/import.html", context)


@admin_required
def pool(request: HttpRequest, collection_id: int) -> HttpResponse:
    """Build the judging pool: "Preview" shows what each topic would gain and each run's unique contribution
    without writing; "Build" runs it as a job with progress."""
    collection = get_object_or_404(Collection, pk=collection_id)
    form = PoolForm(request.POST or None, collection=collection)
    preview = None
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        options = {"strategy": data["strategy"], "more_assessors": data["more_assessors"]}
        runs = list(data["runs"])
        if "preview" in request.POST:
            preview = pools.pool_build(
                collection=collection,
                depth=data["size"],
                budget=data["size"],
                runs=runs or None,
                commit=False,
                **options,
            )
        else:
            job = pools.pool_build_start(
                collection=collection, size=data["size"], runs=runs, created_by=request.user, **options
            )
            return redirect("judging:job", job_id=job.id)
    return render(request, "judging/pool.html", {"collection": collection, "form": form, "preview": preview})


@admin_required
def job(request: HttpRequest, job_id: int) -> HttpResponse:
    """A job's progress; the partial answers the page's polling until the job ends."""
    found = get_object_or_404(Job.objects.select_related("collection"), pk=job_id)
    template = "judging/_job.html" if request.htmx else "judging/job.html"
    kind = job_kinds.kind_of(found)
    corrected = kind.corrected_file_url(found) if kind.corrected_file_url and found.state == JobState.FAILED else None
    return render(request, template, {"job": found, "job_kind": kind, "corrected_file_url": corrected})


@admin_required
@require_POST
def job_retry(request: HttpRequest, job_id: int) -> HttpResponse:
    """Starts a failed job again (an import may ask to skip the invalid lines this time)."""
    failed = get_object_or_404(Job, pk=job_id, state=JobState.FAILED)
    changes = {"skip_invalid": True} if request.POST.get("skip_invalid") and "skip_invalid" in failed.arguments else {}
    if request.POST.get("create_missing") and failed.arguments.get("kind") in ("runs", "qrels"):
        changes["create_missing"] = True
    if failed.upload_id is None and job_kinds.kind_of(failed).corrected_file_url:
        messages.error(request, "The uploaded file is no longer kept; upload it again.")
        return redirect("judging:job", job_id=failed.id)
    retry = jobs.job_retry(job=failed, created_by=request.user, **changes)
    return redirect("judging:job", job_id=retry.id)
