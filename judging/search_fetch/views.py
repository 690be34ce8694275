"""The search pages: an admin's endpoints (add, edit, test a query before saving, fetch a query set as a snapshot)
and the snapshots; a researcher's comparison of two snapshots."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import BadRequest, PermissionDenied, ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST

from config.forms import service_errors_shown
from config.ids import id_given
from judging.models import ROLE_ADMIN, ROLE_RESEARCHER, Collection
from judging.permissions import (
    admin_required,
    reads_for_researchers_writes_for_admins,
    reads_or_changes_campaign,
    user_roles,
)
from judging.search_fetch import selectors, services
from judging.search_fetch.forms import FetchForm, SearchEndpointForm, TryForm
from judging.search_fetch.models import SearchEndpoint, SearchSnapshot


def _tried(form: SearchEndpointForm, try_form: TryForm, collection: Collection, instance=None) -> dict | None:
    """The test query's answer for the form's (unsaved) settings, or None with the problem on the form."""
    if not (form.is_valid() and try_form.is_valid()):
        return None
    if not try_form.cleaned_data["query"].strip():
        try_form.add_error("query", "give a query to test")
        return None
    endpoint = SearchEndpoint(collection=collection, name=form.cleaned_data["name"], **form.settings())
    if instance is not None:
        endpoint.pk = instance.pk
    try:
        return selectors.query_tried(endpoint=endpoint, query=try_form.cleaned_data["query"])
    except ValidationError as error:
        service_errors_shown(form, error)
        return None


@reads_for_researchers_writes_for_admins
def search_endpoints(request: HttpRequest, collection_id: int) -> HttpResponse:
    """The collection's endpoints and snapshots, and the form adding an endpoint (with a test query)."""
    collection = get_object_or_404(Collection, pk=collection_id)
    form = SearchEndpointForm(request.POST or None, prefix="new")
    try_form = TryForm(request.POST or None, prefix="try")
    tried = None
    if request.method == "POST" and "try" in request.POST:
        tried = _tried(form, try_form, collection)
    elif request.method == "POST" and form.is_valid():
        try:
            endpoint = services.search_endpoint_create(
                collection=collection, name=form.cleaned_data["name"], **form.settings()
            )
        except ValidationError as error:
            service_errors_shown(form, error)
        else:
            messages.success(request, f"Endpoint {endpoint.name} added: fetch a query set to make a snapshot.")
            return redirect("judging:search_endpoints", collection_id=collection.id)
    context = {
        "collection": collection,
        "form": form,
        "try_form": try_form,
        "tried": tried,
        "changes": _changes(request),
        "endpoints": selectors.endpoints(collection=collection),
        "snapshots": selectors.snapshots(collection=collection),
        "fetch_form": FetchForm(prefix="fetch"),
    }
    return render(request, "judging/search_endpoints.html", context)


@reads_for_researchers_writes_for_admins
def search_endpoint_edit(request: HttpRequest, endpoint_id: int) -> HttpResponse:
    endpoint = get_object_or_404(SearchEndpoint.objects.select_related("collection"), pk=endpoint_id)
    form = SearchEndpointForm(request.POST or None, instance=SearchEndpoint.objects.get(pk=endpoint.pk), prefix="new")
    try_form = TryForm(request.POST or None, prefix="try")
    tried = None
    if request.method == "POST" and "try" in request.POST:
        tried = _tried(form, try_form, endpoint.collection, instance=endpoint)
    elif request.method == "POST" and form.is_valid():
        try:
            services.search_endpoint_update(endpoint=endpoint, **form.settings())
        except ValidationError as error:
            service_errors_shown(form, error)
        else:
            messages.success(request, f"Saved {endpoint.name}; its snapshots keep the settings they were made with.")
            return redirect("judging:search_endpoints", collection_id=endpoint.collection_id)
    changes = _changes(request)
    for field in form.fields.values() if not changes else ():
        field.disabled = True  # a researcher reads the settings, as the API lets them
    context = {"collection": endpoint.collection, "endpoint": endpoint, "form": form, "try_form": try_form,
               "tried": tried, "changes": changes}  # fmt: skip
    return render(request, "judging/search_endpoint_edit.html", context)


@admin_required
@require_POST
def search_fetch(request: HttpRequest, endpoint_id: int) -> HttpResponse:
    """Starts a fetch of the query set as a snapshot and shows its job."""
    endpoint = get_object_or_404(SearchEndpoint.objects.select_related("collection"), pk=endpoint_id)
    form = FetchForm(request.POST, prefix="fetch")
    if not form.is_valid():
        messages.error(request, "; ".join(f"{k}: {' '.join(v)}" for k, v in form.errors.items()))
        return redirect("judging:search_endpoints", collection_id=endpoint.collection_id)
    typed = [line for line in form.cleaned_data["typed"].splitlines() if line.strip()]
    try:
        job = services.snapshot_fetch_start(
            endpoint=endpoint, typed=typed or None, variables=form.cleaned_data["variables"] or None,
            created_by=request.user,
        )  # fmt: skip
    except ValidationError as error:
        messages.error(request, " ".join(error.messages))
        return redirect("judging:search_endpoints", collection_id=endpoint.collection_id)
    return redirect("judging:job", job_id=job.id)


def _changes(request: HttpRequest) -> bool:
    """Whether the reader may change endpoints (an admin) or only read them (a researcher)."""
    return reads_or_changes_campaign(request.user, "POST")


def _snapshot(request: HttpRequest, name: str) -> SearchSnapshot:
    value = request.GET.get(name) or request.POST.get(name)
    found = SearchSnapshot.objects.select_related("endpoint__collection", "run").filter(pk=id_given(value) or 0)
    if not found.exists():
        raise BadRequest(f"{name}: no snapshot {value!r}; choose two snapshots of one collection")
    return found.get()


@login_required
def snapshot_compare(request: HttpRequest) -> HttpResponse:
    """Two snapshots side by side: overlap per topic, what entered and left the top k, and the way to the judged
    measures' paired comparison."""
    if not user_roles(request.user) & {ROLE_ADMIN, ROLE_RESEARCHER}:
        raise PermissionDenied("snapshot comparisons are for researchers and admins")
    before, after = _snapshot(request, "before"), _snapshot(request, "after")
    if before.endpoint.collection_id != after.endpoint.collection_id:
        raise BadRequest("after: compare two snapshots of one collection")
    if before.pk == after.pk:
        raise BadRequest("after: choose another snapshot than before; one compared with itself shows nothing")
    try:
        k = max(1, min(1000, int(request.GET.get("k") or 10)))
    except ValueError:
        k = 10
    if request.method == "POST":
        if ROLE_ADMIN not in user_roles(request.user):
            raise PermissionDenied("only admins change the judging queue")
        added = services.snapshot_pool_new(snapshot=after, k=k)
        messages.success(request, f"{added} document{'s' if added != 1 else ''} added to the judging queue.")
        return redirect(f"{request.path}?before={before.pk}&after={after.pk}&k={k}")
    context = {
        "collection": before.endpoint.collection,
        "before": before,
        "after": after,
        "comparison": selectors.snapshot_comparison(before=before, after=after, k=k),
        "is_admin": ROLE_ADMIN in user_roles(request.user),
    }
    return render(request, "judging/search_compare.html", context)
