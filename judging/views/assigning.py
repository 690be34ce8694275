"""Admins' assignment pages: who judges which topic, balanced automatic assignment, and reassignment."""

from __future__ import annotations

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST

from judging import services as assigning
from judging.forms import AssignForm, ReassignForm
from judging.models import Assignment, Collection
from judging.permissions import admin_required


@admin_required
def collection_assignments(request: HttpRequest, collection_id: int) -> HttpResponse:
    """The collection's assignments, with the form that assigns the chosen assessors, k per topic, balanced."""
    collection = get_object_or_404(Collection, pk=collection_id)
    form = AssignForm(request.POST or None, collection=collection)
    if request.method == "POST" and form.is_valid():
        topics = list(form.cleaned_data["topics"]) or None
        assessors = list(form.cleaned_data["assessors"])
        try:
            if form.cleaned_data["mode"] == AssignForm.ADD:
                created = assigning.assignments_add(collection=collection, assessors=assessors, topics=topics or [])
            else:
                created = assigning.assignments_balance(collection=collection, assessors=assessors, topics=topics)
        except ValidationError as error:
            form.add_error(None, error)
        else:
            if created:
                messages.success(request, f"{len(created)} assignment(s) added.")
            else:
                messages.warning(request, _nothing_added(collection, form.cleaned_data["mode"]))
            return redirect("judging:campaign_assignments", collection_id=collection.id)
    rows = Assignment.objects.filter(topic__collection=collection).select_related("topic", "assessor")
    context = {"collection": collection, "form": form, "rows": rows, "reassign": ReassignForm()}
    return render(request, "judging/assign.html", context)


def _nothing_added(collection: Collection, mode: str) -> str:
    """Why an assignment run added nothing, with what to do instead."""
    if mode == AssignForm.ADD:
        return "No assignment added: every chosen assessor is already on every chosen topic."
    k = collection.assessors_per_item
    return (
        f"No assignment added: every chosen topic already has its {k} assessor{'s' if k != 1 else ''} (k = {k}) "
        'among those chosen or others. To put more people on a topic, choose "Add the chosen assessors to the chosen '
        'topics"; they then share its items.'
    )


@admin_required
@require_POST
def reassign(request: HttpRequest, assignment_id: int) -> HttpResponse:
    assignment = get_object_or_404(Assignment.objects.select_related("topic"), pk=assignment_id)
    form = ReassignForm(request.POST)
    if form.is_valid():
        try:
            assigning.assignment_reassign(assignment=assignment, assessor=form.cleaned_data["assessor"])
            messages.success(request, f"Topic {assignment.topic.number} reassigned.")
        except ValidationError as error:
            messages.error(request, "; ".join(error.messages))
    else:
        messages.error(request, "Choose an assessor.")
    return redirect("judging:campaign_assignments", collection_id=assignment.topic.collection_id)
