"""A track's pages: a participant's (the window and rules, the upload with its questionnaire, the team's runs with
their receipts, withdrawals, report links) and the organizer's (settings, teams, every submission with its checks,
freezing, the pool by priority)."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import timezone
from django.views.decorators.http import require_POST

from judging.models import Collection
from judging.permissions import admin_required
from judging.services import collection_settings_update
from judging.tracks import core, forms, selectors, services
from judging.tracks.models import Submission, Team
from judging.tracks.services import SubmissionRefused


@login_required
def tracks_mine(request: HttpRequest) -> HttpResponse:
    """The tracks the user is a team member of; one track opens at once."""
    teams = selectors.teams_of(user=request.user)
    if len(teams) == 1:
        return redirect("judging:track", collection_id=teams[0].collection_id)
    return render(request, "judging/tracks/mine.html", {"teams": teams})


def _window(settings) -> dict:
    now = timezone.now()
    return {
        "opens": core.utc_text(settings.opens) if settings.opens else None,
        "closes": core.utc_text(settings.closes) if settings.closes else None,
        "refusal": core.window_refusal(now=now, opens=settings.opens, closes=settings.closes),
    }


@login_required
def track(request: HttpRequest, collection_id: int) -> HttpResponse:
    """A participant's page of one track; POST submits a run (refused: every problem listed, nothing saved)."""
    collection = get_object_or_404(Collection, pk=collection_id)
    team = selectors.team_of(user=request.user, collection_id=collection.pk)
    settings = selectors.submission_settings(collection)
    if team is None or settings is None:
        raise PermissionDenied("this page is for the track's teams")
    form = forms.SubmissionForm(request.POST or None, request.FILES or None, runs_per_team=settings.runs_per_team)
    refusal = None
    if request.method == "POST" and form.is_valid():
        given = dict(form.cleaned_data)
        upload = given.pop("file")
        try:
            submission, replaced = services.submission_receive(
                collection=collection, user=request.user, upload=upload, questionnaire=services.Questionnaire(**given)
            )
        except SubmissionRefused as error:
            refusal = error
        else:
            verb = "replaced" if replaced else "received"
            messages.success(request, f"Run {submission.tag} {verb} at {core.utc_text(submission.received_at)}; "
                             f"SHA-256 {submission.sha256}.")  # fmt: skip
            return redirect("judging:track", collection_id=collection.pk)
    submissions = list(selectors.current_submissions(collection=collection, team=team))
    context = {
        "collection": collection,
        "team": team,
        "settings": settings,
        "window": _window(settings),
        "topics": collection.topics.count(),
        "form": form,
        "refusal": refusal,
        "file_name": getattr(request.FILES.get("file"), "name", ""),
        "rows": [(s, selectors.report_refusal(user=request.user, submission=s) is None) for s in submissions],
    }
    status = refusal.http_status if refusal is not None else 400 if form.errors else 200
    return render(request, "judging/tracks/track.html", context, status=status)


@login_required
@require_POST
def submission_withdraw(request: HttpRequest, collection_id: int, submission_id: int) -> HttpResponse:
    submission = get_object_or_404(Submission.objects.select_related("collection"), pk=submission_id,
                                   collection_id=collection_id)  # fmt: skip
    try:
        services.submission_withdraw(submission=submission, user=request.user)
    except SubmissionRefused as error:
        messages.error(request, error.reason)
    else:
        messages.success(request, f"Run {submission.tag} withdrawn; its slot is free.")
    return redirect("judging:track", collection_id=collection_id)


def _organizer_context(collection: Collection, settings) -> dict:
    submissions = list(selectors.current_submissions(collection=collection))
    return {
        "collection": collection,
        "settings": settings,
        "window": _window(settings) if settings else None,
        "teams": selectors.collection_teams(collection=collection),
        "submissions": submissions,
        "team_form": forms.TeamForm(),
        "pool_form": forms.PriorityPoolForm(initial={"strategy": "depth"}),
    }


def _settings_initial(settings) -> dict:
    if settings is None:
        return {"runs_per_team": 3, "depth": 1000, "missing_documents": "refuse"}
    return {name: getattr(settings, name) for name in selectors.SETTINGS}


@admin_required
def track_organize(request: HttpRequest, collection_id: int) -> HttpResponse:
    """The organizer's page; POST saves the submission settings (through the collection's one settings service)."""
    collection = get_object_or_404(Collection, pk=collection_id)
    settings = selectors.submission_settings(collection)
    form = forms.TrackSettingsForm(request.POST or None, initial=_settings_initial(settings))
    if request.method == "POST" and form.is_valid():
        given = dict(form.cleaned_data)
        for name in ("opens", "closes"):
            given[name] = given[name].isoformat() if given[name] else None
        try:
            collection_settings_update(collection=collection, changed_by=request.user, submissions=given)
        except ValidationError as error:
            form.add_error(None, " ".join(error.messages))
        else:
            messages.success(request, "Submission settings saved.")
            return redirect("judging:track_organize", collection_id=collection.pk)
    context = _organizer_context(collection, settings) | {"form": form}
    return render(request, "judging/tracks/organize.html", context, status=400 if form.errors else 200)


@admin_required
@require_POST
def team_new(request: HttpRequest, collection_id: int) -> HttpResponse:
    collection = get_object_or_404(Collection, pk=collection_id)
    form = forms.TeamForm(request.POST)
    if form.is_valid():
        try:
            team = services.team_create(collection=collection, **form.cleaned_data)
        except ValidationError as error:
            messages.error(request, " ".join(error.messages))
        else:
            messages.success(request, f"Team {team.name} can submit runs now (within the window).")
    else:
        messages.error(request, " ".join(f"{name}: {' '.join(errors)}" for name, errors in form.errors.items()))
    return redirect("judging:track_organize", collection_id=collection.pk)


@admin_required
@require_POST
def team_edit(request: HttpRequest, collection_id: int, team_id: int) -> HttpResponse:
    """Renames a team or sets its members (the organizer's page, each team's "Edit")."""
    team = get_object_or_404(Team, pk=team_id, collection_id=collection_id)
    form = forms.TeamForm(request.POST)
    if form.is_valid():
        try:
            team = services.team_update(team=team, **form.cleaned_data)
        except ValidationError as error:
            messages.error(request, f"Team {team.name}: {' '.join(error.messages)}")
        else:
            messages.success(request, f"Team {team.name} saved.")
    else:
        messages.error(request, " ".join(f"{name}: {' '.join(errors)}" for name, errors in form.errors.items()))
    return redirect("judging:track_organize", collection_id=collection_id)


@admin_required
@require_POST
def track_freeze(request: HttpRequest, collection_id: int) -> HttpResponse:
    collection = get_object_or_404(Collection, pk=collection_id)
    services.submissions_freeze(collection=collection)
    messages.success(request, "Submissions are frozen: no upload, replacement or withdrawal from now on.")
    return redirect("judging:track_organize", collection_id=collection.pk)


@admin_required
@require_POST
def track_pool(request: HttpRequest, collection_id: int) -> HttpResponse:
    """Pools the submissions by priority: a preview (nothing written) or the build, a job with its progress."""
    collection = get_object_or_404(Collection, pk=collection_id)
    settings = selectors.submission_settings(collection)
    form = forms.PriorityPoolForm(request.POST)
    preview = None
    if form.is_valid():
        depths = form.depths(settings.runs_per_team if settings else 1)
        strategy = form.cleaned_data["strategy"]
        try:
            if "build" in request.POST:
                job = services.submissions_pool_start(collection=collection, depths=depths, strategy=strategy,
                                                      created_by=request.user)  # fmt: skip
                return redirect("judging:job", job_id=job.id)
            preview = services.submissions_pool(collection=collection, depths=depths, strategy=strategy)
        except ValidationError as error:
            messages.error(request, " ".join(error.messages))
    context = _organizer_context(collection, settings) | {
        "form": forms.TrackSettingsForm(initial=_settings_initial(settings)),
        "pool_form": form,
        "preview": preview,
    }
    return render(request, "judging/tracks/organize.html", context, status=200 if form.is_valid() else 400)
