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
from judging.models import Collection
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
    asked = request.GET.get("measure")
    plotted = asked if asked in measures else "AP" if "AP" in measures else measures[0]
    bars = core.bar_shapes(core.median_bars(found["topics"], plotted))
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
        "bars": bars,
        "plot": {"width": core.PLOT_WIDTH, "height": core.PLOT_HEIGHT, "middle": core.PLOT_HEIGHT / 2},
    }
    return render(request, "evaluation/reports/report.html", context)


@login_required
def report_download(request: HttpRequest, collection_id: int, submission_id: int):
    return report_file(readable_submission(request.user, collection_id, submission_id))


@login_required
def track_results(request: HttpRequest, collection_id: int) -> HttpResponse:
    """The submitted runs' leaderboard: researchers and admins, and the track's teams once results are released."""
    collection = get_object_or_404(Collection, pk=collection_id)
    rows = selectors.track_results(user=request.user, collection=collection)
    if rows is None:
        raise PermissionDenied("the track's results are for its teams once the organizers release them")
    context = {"collection": collection, "measures": list(collection.measures), "rows": rows}
    return render(request, "evaluation/reports/track_results.html", context)
