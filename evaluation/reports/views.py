"""A submitted run's report as a page (to read and to print: the table per topic, the plot of differences from
the median) and as its `trec_eval -q` file."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render

from evaluation.exports.results import results_export
from evaluation.files import streamed
from evaluation.reports import core, selectors
from judging.tracks import selectors as tracks
from judging.tracks.models import Submission


def report_file(submission: Submission):
    """The run's stored per-topic values and means as `trec_eval -q` prints them (the results export of one run)."""
    name, meta, lines = results_export(collection=submission.collection, fmt="trec", runs=[submission.tag])
    return streamed(name.replace("results", f"report-{submission.tag}", 1), meta, lines)


def readable_submission(user, collection_id: int, submission_id: int) -> Submission:
    """The submission whose report the user asks for; 404 for none, 403 with the reason when it is not theirs to
    read (`judging.tracks.selectors.report_refusal`, the one rule), for the page and the API alike."""
    submission = get_object_or_404(
        Submission.objects.select_related("collection", "team"), pk=submission_id, collection_id=collection_id
    )
    refusal = tracks.report_refusal(user=user, submission=submission)
    if refusal:
        raise PermissionDenied(refusal)
    return submission


@login_required
def report(request: HttpRequest, collection_id: int, submission_id: int) -> HttpResponse:
    submission = readable_submission(request.user, collection_id, submission_id)
    found = selectors.run_report(submission=submission)
    measures = found["measures"]
    plotted = request.GET.get("measure") if request.GET.get("measure") in measures else measures[0]
    bars = core.median_bars(found["topics"], plotted)
    widest = max((abs(b) for _, b in bars if b is not None), default=0.0) or 1.0
    rows = [
        (topic, [found["topics"][topic].get(m) for m in measures])
        for topic in sorted(found["topics"], key=core.topic_order)
    ]
    context = {
        "collection": submission.collection,
        "submission": submission,
        "report": found,
        "measures": measures,
        "means": [found["means"].get(m) for m in measures],
        "rows": rows,
        "plotted": plotted,
        "bars": [(topic, bar, 50 * abs(bar) / widest if bar is not None else 0) for topic, bar in bars],
    }
    return render(request, "evaluation/reports/report.html", context)


@login_required
def report_download(request: HttpRequest, collection_id: int, submission_id: int):
    return report_file(readable_submission(request.user, collection_id, submission_id))
