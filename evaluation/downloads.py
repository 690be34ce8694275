"""Export downloads for the pages and the API alike: query parameters in, a streamed file out.

Parameters: `format`; for qrels `source` (consensus | assessor | all), `assessor`, `binarise_at`, `topics`
(comma-separated numbers); for results `runs` (comma-separated tags). Provenance rides in headers.
"""

from __future__ import annotations

import csv
import io

from django.http import HttpResponse, StreamingHttpResponse

from evaluation.exports.qrels import qrels_export
from evaluation.exports.results import results_export
from evaluation.files import streamed
from judging.models import Collection
from judging.permissions import sees_assessors


class BadExportRequest(ValueError):
    """A parameter names what cannot be exported; the message says which and why."""


def _listed(value: str | None) -> list[str] | None:
    items = [v.strip() for v in (value or "").split(",") if v.strip()]
    return items or None


def qrels_download(collection: Collection, params, user) -> StreamingHttpResponse:
    reveal = sees_assessors(user, collection)
    raw_binarise = params.get("binarise_at")
    try:
        binarise_at = int(raw_binarise) if raw_binarise not in (None, "") else None
    except ValueError as error:
        raise BadExportRequest("binarise_at must be a whole number") from error
    try:
        name, meta, lines = qrels_export(
            collection=collection,
            fmt=params.get("format", "trec"),
            source=params.get("source", "consensus"),
            assessor=params.get("assessor"),
            topics=_listed(params.get("topics")),
            binarise_at=binarise_at,
            reveal_assessors=reveal,
        )
    except ValueError as error:
        raise BadExportRequest(str(error)) from error
    return streamed(name, meta, lines)


def results_download(collection: Collection, params) -> StreamingHttpResponse:
    try:
        name, meta, lines = results_export(
            collection=collection, fmt=params.get("format", "trec"), runs=_listed(params.get("runs"))
        )
    except ValueError as error:
        raise BadExportRequest(str(error)) from error
    return streamed(name, meta, lines)


def estimates_download(collection: Collection, estimates: dict) -> HttpResponse:
    """The sampled pool's estimates (`selectors.sampled_pool_estimates`) as CSV: one row per run and measure, the
    measure named as an estimate, with its 95% interval and the number of topics."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(["run", "measure", "estimate", "low_95", "high_95", "topics"])
    for tag, values in estimates["runs"].items():
        for name, e in values.items():
            row = [tag, f"{name} (estimate)", f"{e.value:.6f}", f"{e.low:.6f}", f"{e.high:.6f}", estimates["topics"]]
            writer.writerow(row)
    response = HttpResponse(buffer.getvalue(), content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="collection-{collection.id}-estimates.csv"'
    return response
