"""Admins' answers to a paused assessor: resume their judging, or discard their labels since a moment."""

from __future__ import annotations

from datetime import datetime

from django.contrib import messages
from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect
from django.utils import timezone
from django.views.decorators.http import require_POST

from judging.models import Collection
from judging.permissions import admin_required
from judging.quality.models import AssessorPause
from judging.quality.services import pauses as quality


@admin_required
@require_POST
def assessor_resume(request: HttpRequest, pause_id: int) -> HttpResponse:
    pause = get_object_or_404(AssessorPause.objects.select_related("assessor"), pk=pause_id)
    quality.assessor_resume(pause=pause, by=request.user)
    messages.success(request, f"{pause.assessor.username} judges again.")
    return redirect("judging:campaign", collection_id=pause.collection_id)


@admin_required
@require_POST
def assessor_discard(request: HttpRequest, collection_id: int, user_id: int) -> HttpResponse:
    """Discards an assessor's labels since the moment given (`since`, the form's local date and time, read in the
    server's time zone)."""
    collection = get_object_or_404(Collection, pk=collection_id)
    assessor = get_object_or_404(get_user_model(), pk=user_id)
    try:
        since = timezone.make_aware(datetime.fromisoformat(request.POST.get("since", "")))
        discarded = quality.assessor_labels_discard(
            collection=collection, assessor=assessor, since=since, by=request.user
        )
    except ValueError:
        messages.error(request, "Give the moment as a date and time, e.g. 2026-11-26 09:30.")
    except ValidationError as error:
        messages.error(request, " ".join(error.messages))
    else:
        messages.success(request, f"Discarded {discarded} of {assessor.username}'s labels; the results recompute.")
    return redirect("judging:campaign", collection_id=collection.id)
