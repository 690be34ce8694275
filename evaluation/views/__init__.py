"""Pages of the evaluation app, for researchers and admins: the leaderboard and downloads, a run's page, two runs
compared, curves, agreement, trial runs, and the plots they show."""

from __future__ import annotations

from django.core.exceptions import BadRequest, PermissionDenied
from django.http import HttpRequest
from django.shortcuts import get_object_or_404

from judging.models import Collection, Run
from judging.permissions import user_roles


def researcher_collection(request: HttpRequest, collection_id: int) -> Collection:
    """The collection, for researchers and admins only: results would bias assessors who are still judging."""
    if not user_roles(request.user) & {"admin", "researcher"}:
        raise PermissionDenied("results are for researchers and admins")
    return get_object_or_404(Collection, pk=collection_id)


def chosen_measure(collection: Collection, value: str | None, default: str = "AP") -> str:
    measures = list(collection.measures)
    if not value:
        return default if default in measures else (measures[0] if measures else default)
    if value not in measures:
        raise BadRequest(f"measure {value!r} is not computed for this collection; choose one of {', '.join(measures)}")
    return value


def chosen_run(collection: Collection, value: str | None, name: str) -> Run:
    """The run with id `value` in the collection; a clear 400 when it is missing or not a number."""
    if not value or not value.isdigit():
        raise BadRequest(f"{name} must name a run of the collection by id")
    run = Run.objects.filter(collection=collection, pk=int(value)).first()
    if run is None:
        raise BadRequest(f"{name}: no run {value} in collection {collection.name!r}")
    return run


def chosen_runs(collection: Collection, values: list[str]) -> list[Run]:
    return [chosen_run(collection, value, "runs") for value in dict.fromkeys(values)]
