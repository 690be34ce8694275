"""The campaign's REST API: `collections` (collections, their topics, documents, runs and standing), `pools`
(imports and pool builds, as jobs), `assignments` (who judges which topic)."""

from judging.api.campaign.assignments import (
    AssignmentDetail,
    AssignmentList,
    AssignmentSerializer,
    AssignRequestSerializer,
    ReassignSerializer,
)
from judging.api.campaign.collections import (
    AccountsInRole,
    CollectionDetail,
    CollectionList,
    CollectionSerializer,
    CollectionStanding,
    DocumentList,
    DocumentSerializer,
    RunList,
    RunSerializer,
    StandingSerializer,
    TopicList,
    TopicSerializer,
)
from judging.api.campaign.pools import ImportCreate, ImportSerializer, PoolBuildSerializer, PoolItemSerializer, PoolView

__all__ = [
    "AccountsInRole",
    "AssignRequestSerializer",
    "AssignmentDetail",
    "AssignmentList",
    "AssignmentSerializer",
    "CollectionDetail",
    "CollectionList",
    "CollectionSerializer",
    "CollectionStanding",
    "DocumentList",
    "DocumentSerializer",
    "ImportCreate",
    "ImportSerializer",
    "PoolBuildSerializer",
    "PoolItemSerializer",
    "PoolView",
    "ReassignSerializer",
    "RunList",
    "RunSerializer",
    "StandingSerializer",
    "TopicList",
    "TopicSerializer",
]
