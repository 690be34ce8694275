"""What every evaluation page does first: refuse a reader results are not for, and read the measure and runs a
request names (a refusal is the page's 400 with the selector's words)."""

from __future__ import annotations

from django.core.exceptions import BadRequest, PermissionDenied, ValidationError
from django.http import HttpRequest
from django.shortcuts import get_object_or_404

from evaluation import selectors
from judging import plugins
from judging.models import ROLE_ADMIN, ROLE_RESEARCHER, Collection, Run
from judging.permissions import user_roles


def researcher_collection(request: HttpRequest, collection_id: int) -> Collection:
    """The collection, for researchers and admins only: results would bias assessors who are still judging."""
    if not user_roles(request.user) & {ROLE_ADMIN, ROLE_RESEARCHER}:
        raise PermissionDenied("results are for researchers and admins")
    return get_object_or_404(plugins.with_settings(Collection.objects.all()), pk=collection_id)


def chosen_measure(collection: Collection, value: str | None, default: str = "AP") -> str:
    """`selectors.chosen_measure` for a page: its refusal is the page's 400 with the same words."""
    return _as_bad_request(selectors.chosen_measure, collection=collection, value=value, default=default)


def chosen_run(collection: Collection, value: str | None, name: str) -> Run:
    """`selectors.chosen_run` for a page (the API's reading of a run, by tag or id): a refusal is a 400."""
    return _as_bad_request(selectors.chosen_run, collection=collection, value=value, name=name)


def _as_bad_request(select, **arguments):
    try:
        return select(**arguments)
    except ValidationError as error:
        raise BadRequest("; ".join(error.messages)) from error


def chosen_runs(collection: Collection, values: list[str]) -> list[Run]:
    return [chosen_run(collection, value, "runs") for value in dict.fromkeys(values)]
