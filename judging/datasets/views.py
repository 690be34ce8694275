"""The import page's standard-collection form: an ir_datasets id, started as a job."""

from __future__ import annotations

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect
from django.views.decorators.http import require_POST

from judging.datasets.forms import DatasetForm
from judging.datasets.services import dataset_import_start
from judging.models import Collection
from judging.permissions import admin_required


@admin_required
@require_POST
def dataset_import(request: HttpRequest, collection_id: int) -> HttpResponse:
    collection = get_object_or_404(Collection, pk=collection_id)
    form = DatasetForm(request.POST)
    if not form.is_valid():
        messages.error(request, "; ".join(f"{k}: {' '.join(v)}" for k, v in form.errors.items()))
        return redirect("judging:import", collection_id=collection.id)
    try:
        job = dataset_import_start(collection=collection, dataset=form.cleaned_data["dataset"],
                                   documents=form.cleaned_data["documents"], created_by=request.user)  # fmt: skip
    except ValidationError as error:
        messages.error(request, " ".join(error.messages))
        return redirect("judging:import", collection_id=collection.id)
    return redirect("judging:job", job_id=job.id)
