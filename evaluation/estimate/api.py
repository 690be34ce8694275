"""The estimate over the API: every run's machine-assisted value of every measure with its interval, the pairs of
runs, and whether the people's topics were drawn at random; admins draw the next topics for people to judge."""

from __future__ import annotations

from django.shortcuts import get_object_or_404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import exceptions, serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from evaluation.estimate import selectors, services
from evaluation.estimate.core import DEFAULT_LEVEL, METHOD
from judging.models import Collection
from judging.permissions import IsAdmin, IsResearcherOrAdmin


class EstimateQuery(serializers.Serializer):
    judge = serializers.IntegerField(required=False, min_value=1, help_text="a machine judge's id (default: the "
                                     "verification judge, else the one with most labels)")  # fmt: skip
    level = serializers.FloatField(required=False, default=DEFAULT_LEVEL, min_value=0.5, max_value=0.999)


class EstimateView(APIView):
    """The collection's estimate: `runs` and `pairs` as `python -m evaluation.estimate --json` prints them (run ids
    are run tags), with the judge, the topics, and `valid` (false, with `not_random`, when people judged topics that
    were never drawn at random). `exact`: people judged every topic, the leaderboard needs no interval. Without a
    machine judge's labels, `judge` is null and `reason` says so."""

    permission_classes = [IsResearcherOrAdmin]

    @extend_schema(
        parameters=[OpenApiParameter("judge", int), OpenApiParameter("level", float)],
        responses={200: OpenApiTypes.OBJECT},
    )
    def get(self, request: Request, collection_id: int) -> Response:
        collection = get_object_or_404(Collection, pk=collection_id)
        query = EstimateQuery(data=request.query_params)
        query.is_valid(raise_exception=True)
        asked = query.validated_data.get("judge")
        judge = selectors.estimate_judge(collection=collection, judge_id=asked)
        if judge is None and asked is not None:
            raise exceptions.NotFound(f"no machine judge {asked} in this collection")
        if judge is None:
            return Response(
                {
                    "collection": collection.name,
                    "method": METHOD,
                    "judge": None,
                    "reason": "no machine judge of this collection has labels: every value is people's",
                }
            )
        estimate = selectors.collection_estimate(
            collection=collection, judge=judge, level=query.validated_data["level"]
        )
        return Response({
            "collection": collection.name, "method": METHOD, "judge": {"id": judge.pk, "name": judge.name},
            "exact": estimate.exact, "valid": estimate.valid, "not_random": estimate.not_random,
            "people_topics": estimate.people_topics,
            **(estimate.report or {"level": estimate.level, "topics": {"all": estimate.topics,
                                                                        "people": len(estimate.people_topics)}}),
        })  # fmt: skip


class DrawRequest(serializers.Serializer):
    count = serializers.IntegerField(min_value=1, max_value=services.MAX_DRAW)


class TopicDrawsView(APIView):
    """Admins draw `count` topics uniformly at random among those people have not judged, for people to judge."""

    permission_classes = [IsAdmin]

    @extend_schema(request=DrawRequest, responses={201: OpenApiTypes.OBJECT})
    def post(self, request: Request, collection_id: int) -> Response:
        collection = get_object_or_404(Collection, pk=collection_id)
        body = DrawRequest(data=request.data)
        body.is_valid(raise_exception=True)
        # A refusal is the service's ValidationError, which the API's handler answers as a 400 naming the field.
        drawn = services.topics_draw(collection=collection, count=body.validated_data["count"], drawn_by=request.user)
        return Response({"drawn": [topic.number for topic in drawn]}, status=201)
