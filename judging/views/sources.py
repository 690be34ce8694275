"""The Sources page of a collection: every account that labels in it, what it is and what its labels do there,
changed by an admin (one form per account), with who changed it, when and why."""

from __future__ import annotations

from django import forms
from django.contrib import messages
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST

from judging import selectors as judging_selectors
from judging.machines import selectors as machine_selectors
from judging.models import ROLE_ADMIN, Collection
from judging.permissions import admin_required, reads_for_researchers_writes_for_admins, sees_assessors, user_roles
from judging.sources import selectors, services
from judging.sources.models import SourceKind, SourceRole


class SourceForm(forms.Form):
    kind = forms.ChoiceField(choices=SourceKind.choices)
    role = forms.ChoiceField(choices=SourceRole.choices)
    reason = forms.CharField(max_length=200, required=False)


@reads_for_researchers_writes_for_admins
def sources(request: HttpRequest, collection_id: int) -> HttpResponse:
    """Every source of the collection; an admin changes them here, a researcher reads them (as the API allows)."""
    collection = get_object_or_404(Collection, pk=collection_id)
    rows = selectors.collection_sources(
        collection=collection, names=_names(request, collection), reveal=sees_assessors(request.user, collection)
    )
    context = {"collection": collection, "rows": rows, "kind_choices": SourceKind.choices,
               "role_choices": SourceRole.choices, "changes": ROLE_ADMIN in user_roles(request.user)}  # fmt: skip
    return render(request, "judging/sources.html", context)


@admin_required
@require_POST
def source_update(request: HttpRequest, collection_id: int, account_id: int) -> HttpResponse:
    collection = get_object_or_404(Collection, pk=collection_id)
    form = SourceForm(request.POST)
    if not form.is_valid():
        field, errors = next(iter(form.errors.items()))
        messages.error(request, f"{field}: {' '.join(errors)}")
        return redirect("judging:sources", collection_id=collection.id)
    try:
        services.label_source_set(
            collection=collection, account=account_id, changed_by=request.user, **form.cleaned_data
        )
    except ValidationError as error:
        messages.error(request, "; ".join(error.messages))
    else:
        messages.success(request, "Saved; results are recomputed if the role changed.")
    return redirect("judging:sources", collection_id=collection.id)


def _names(request, collection) -> dict[int, str]:
    """The accounts' names as every page shows them to this reader (machines named, people pseudonymised unless
    the reader sees assessors)."""
    reveal = sees_assessors(request.user, collection)
    return machine_selectors.machine_names(collection=collection) | judging_selectors.assessor_names(
        collection=collection, reveal=reveal
    )
