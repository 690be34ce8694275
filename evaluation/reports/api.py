"""A submitted run's report over the API: its team reads it once results are released (or at once with live
reports), admins always; `?format=trec` is the run's per-topic `trec_eval -q` file."""

from __future__ import annotations

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import permissions
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from evaluation.reports import selectors
from evaluation.reports.views import readable_submission, report_file


class SubmissionReport(APIView):
    """{run, measures, means, topics {QID: {MEASURE: {value, best, median, worst}}}}: best, median and worst over
    the current submitted runs; means over the qrels' topics as `trec_eval -c`."""

    permission_classes = [permissions.IsAuthenticated]

    @extend_schema(
        parameters=[OpenApiParameter("format", str, enum=["json", "trec"])], responses={200: OpenApiTypes.OBJECT}
    )
    def get(self, request: Request, collection_id: int, submission_id: int):
        submission = readable_submission(request.user, collection_id, submission_id)
        if request.query_params.get("format") == "trec":
            return report_file(submission)
        return Response(selectors.run_report(submission=submission))
