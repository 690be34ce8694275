"""Admins set up campaigns in the browser: create and edit a collection (scale, measures, consensus, guidelines with a
preview). Views parse the form and call the collection services; nothing is written elsewhere."""

from __future__ import annotations

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.db import transaction
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST

from judging import plugins, selectors, services
from judging.datasets.services import dataset_check, dataset_import_start
from judging.forms import CollectionForm
from judging.models import Collection
from judging.permissions import admin_required
from judging.sources import selectors as sources
from judging.templatetags.guidelines import guidelines


def _scale_defaults() -> dict:
    """Default labels per scale size, for the page's script to fill grades the admin has not typed."""
    return {top: services.scale_labels(top) for top in range(1, 6)}


@admin_required
def collection_new(request: HttpRequest) -> HttpResponse:
    form = CollectionForm(request.POST or None, grades=dict(enumerate(services.scale_labels(3))))
    if request.method == "POST" and form.is_valid():
        try:
            if form.settings().get("ir_datasets_id"):  # its files are here, or nothing is made
                dataset_check(dataset=form.settings()["ir_datasets_id"])
            collection = services.collection_create(
                grades=form.cleaned_data["grades"], created_by=request.user, **form.settings()
            )
        except ValidationError as error:
            form.add_error(None, error)
        else:
            if collection.ir_datasets_id:  # a standard collection: its topics and qrels come at once
                job = dataset_import_start(collection=collection, dataset=collection.ir_datasets_id,
                                           created_by=request.user)  # fmt: skip
                messages.success(
                    request, f"Collection {collection.name} created: importing {collection.ir_datasets_id}."
                )
                return redirect("judging:job", job_id=job.id)
            messages.success(request, f"Collection {collection.name} created: now import its topics and documents.")
            return redirect("judging:import", collection_id=collection.id)
    context = {"form": form, "collection": None, "defaults": _scale_defaults(), "scale_locked": False}
    return render(request, "judging/collection_form.html", context)


@admin_required
def collection_edit(request: HttpRequest, collection_id: int) -> HttpResponse:
    collection = get_object_or_404(Collection.objects.prefetch_related("grades"), pk=collection_id)
    chosen = list(collection.measures)
    initial = {name: getattr(collection, name) for name in CollectionForm.base_fields if hasattr(collection, name)}
    initial |= {
        "measures": [m for m in chosen if m in dict(CollectionForm.base_fields["measures"].choices)],
        "more_measures": ", ".join(m for m in chosen if m not in dict(CollectionForm.base_fields["measures"].choices)),
    }
    grades = {g.value: (g.label, g.description) for g in collection.grades.all()}
    assessors = selectors.collection_assessors(collection=collection)
    judges = list(collection.machine_judges.order_by("name").values_list("id", "name"))
    initial |= plugins.settings_read(collection=collection)
    # The fields made for this collection (not in base_fields) start from its own values too: a form saved for
    # another reason must not clear who is advisory or gold.
    initial["advisory_assessors"] = sorted(sources.advisory_accounts(collection=collection))
    initial["gold_assessors"] = sorted(sources.gold_accounts(collection=collection))
    form = CollectionForm(
        request.POST or None, initial=initial, grades=grades, assessors=assessors, machine_judges=judges
    )
    scale_locked = sources.every_label(collection=collection).exists()
    if scale_locked:  # judgments were made on this scale: its size stays (labels can still be reworded)
        form.fields["max_grade"].disabled = True
    if request.method == "POST" and form.is_valid():
        try:
            with transaction.atomic():
                updated = services.collection_settings_update(
                    collection=collection, changed_by=request.user, **form.settings()
                )
                services.collection_scale_update(collection=updated, grades=form.cleaned_data["grades"])
        except ValidationError as error:
            form.add_error(None, error)
        else:
            messages.success(request, "Settings saved; results are recomputed if an evaluation setting changed.")
            return redirect("judging:campaign", collection_id=collection.id)
    context = {"form": form, "collection": collection, "defaults": _scale_defaults(), "scale_locked": scale_locked}
    return render(request, "judging/collection_form.html", context)


@admin_required
@require_POST
def guidelines_preview(request: HttpRequest) -> HttpResponse:
    """The guidelines as assessors will see them (htmx swaps this into the form)."""
    return HttpResponse(guidelines(request.POST.get("guidelines", "")) or "<p class='muted'>Nothing to show.</p>")
