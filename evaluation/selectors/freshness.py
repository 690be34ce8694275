"""Whether the stored results are fresh: the stale topics, the measures not yet computed, the results'
version (what caches and downloads are keyed by), the agreement's freshness and the paged status."""

from __future__ import annotations

import hashlib
import json

from django.db.models import Count, Exists, OuterRef

from evaluation.models import CollectionState, RunAggregates, TopicState
from evaluation.selectors.values import settings_key, stored_measures
from judging.models import Collection, Run, Topic


def _stale_states(collection_id: int):
    """Topics whose stored values are not those of their current judgments and rankings: dirty, or claimed by a
    recompute that has not stored its results yet."""
    return TopicState.objects.filter(topic__collection_id=collection_id).stale()


def stale_topics_beside(*, topic_id: int, limit: int) -> list[int]:
    """Up to `limit` other topics of the topic's collection waiting for a recompute (dirty), the longest waiting
    first: what a worker taking this topic takes along."""
    if limit <= 0:
        return []
    collection = Topic.objects.filter(pk=topic_id).values("collection_id")[:1]
    waiting = TopicState.objects.filter(dirty=True, topic__collection_id=collection).exclude(pk=topic_id)
    return list(waiting.order_by("dirty_since", "pk").values_list("pk", flat=True)[:limit])


def _missing_measures(collection: Collection) -> list[str]:
    """Measures the collection asks for that have no stored aggregate although its runs have been evaluated: a
    value that would be shown as "–" beside a fresh badge, so the collection is not fresh while any is missing."""
    if not Run.objects.filter(collection=collection).exists():
        return []
    stored = set(RunAggregates.objects.filter(collection=collection).values_list("measure", flat=True))
    return [measure for measure in stored_measures(collection) if measure not in stored]


def collections_with_lost_totals() -> list[int]:
    """Collections whose runs' totals rows are missing while none of their topics is stale: what a PostgreSQL crash
    leaves (the totals table is unlogged, emptied on recovery) and a recount from the stored values restores. One
    query while nothing is lost; a collection still being computed is left to its recomputes."""
    counted = (
        Collection.objects.filter(Exists(Run.objects.filter(collection=OuterRef("pk"))))
        .annotate(stored=Count("run_aggregates"))
        .only("id", "measures")
    )
    lost = [c.pk for c in counted if c.stored < len(set(stored_measures(c)))]
    computing = set(
        TopicState.objects.filter(topic__collection_id__in=lost).stale().values_list("topic__collection_id", flat=True)
    )
    return [pk for pk in lost if pk not in computing]


def collection_freshness(*, collection: Collection) -> dict:
    """The one definition of a collection's freshness, for every page and the API: no topic stale and every
    measure asked for stored. Returns {"fresh", "stale_topics", "missing_measures"}."""
    stale = _stale_states(collection.id).count()
    missing = _missing_measures(collection)
    return {"fresh": stale == 0 and not missing, "stale_topics": stale, "missing_measures": missing}


def results_version(*, collection: Collection) -> str | None:
    """A key for what the results pages and plots of a collection show: it changes with every judgment, ranking or
    settings change (the collection's generation, its settings, its measures) and every search-log import or
    setting. None while anything is stale, so that nothing computed from values about to change is kept."""
    state = CollectionState.objects.filter(pk=collection.pk).values_list("generation", "dirty").first()
    if state is None or state[1] or _stale_states(collection.id).exists():
        return None
    logs = list(collection.search_logs.order_by("pk").values_list("pk", "imports", "settings", "arm_runs"))
    parts = [collection.pk, state[0], settings_key(collection), collection.measures, collection.agreement_measure, logs]
    return hashlib.sha256(json.dumps(parts, default=str).encode()).hexdigest()


def collection_agreement_fresh(*, collection_id: int) -> bool:
    """Whether the collection-wide agreement report reflects every judgment (the sweep refreshes it seconds after
    a change)."""
    state = CollectionState.objects.filter(collection_id=collection_id).first()
    return state is None or state.fresh


def status_topics(*, collection_id: int, stale_only: bool = False):
    """The collection's topics in id order (only the stale ones on request), for the status answer to page through
    (DRF's pagination, `evaluation.api.results.StatusTopicsPagination`): rows of number and staleness fields."""
    topics = Topic.objects.filter(collection_id=collection_id).order_by("id")
    if stale_only:
        topics = topics.filter(evaluation_state__in=_stale_states(collection_id))
    return topics.values_list(
        "number",
        "evaluation_state__dirty",
        "evaluation_state__generation",
        "evaluation_state__computed_generation",
        "evaluation_state__computed_at",
    )


def status_rows(rows) -> list[dict]:
    """A page of `status_topics` as the status answer lists it."""
    return [
        {
            "topic": number,
            "fresh": not dirty and (computed or 0) >= (generation or 0),
            "generation": generation or 0,
            "computed_generation": computed or 0,
            "computed_at": computed_at,
        }
        for number, dirty, generation, computed, computed_at in rows
    ]


def collection_status(*, collection_id: int) -> dict:
    """Whether the collection's stored values are fresh or being recomputed, with the qrels version and settings
    they came from; its topics are paged apart (`status_topics`), so the answer stays small however many topics
    the collection has."""
    from judging.models import Collection

    collection = Collection.objects.get(pk=collection_id)
    state = CollectionState.objects.filter(collection_id=collection_id).first()
    freshness = collection_freshness(collection=collection)
    agreement_fresh = state.fresh if state else True
    return {
        "collection": collection.name,
        "qrels_version": state.qrels_version if state else 0,
        "settings": settings_key(collection),
        "fresh": freshness["fresh"] and agreement_fresh,
        "stale_topics": freshness["stale_topics"],
        "missing_measures": freshness["missing_measures"],
        "agreement_fresh": agreement_fresh,
    }
