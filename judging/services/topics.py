"""Writes of topics."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from django.db import transaction

from judging import signals
from judging.models import Collection, Topic
from judging.services._rows import stored_rows, upsert_by_key


@transaction.atomic
def topics_create(*, collection: Collection, topics: Iterable[Mapping]) -> list[Topic]:
    """Adds topics ({number, title, description?, narrative?, extra?}); numbers must be new to the collection."""
    return Topic.objects.bulk_create(Topic(collection=collection, **topic) for topic in topics)


TOPIC_FIELDS = ["title", "description", "narrative", "extra"]


@transaction.atomic
def topics_upsert(*, collection: Collection, records) -> tuple[int, int, int]:
    """Adds topics whose number is new and updates those whose text changed (their judgments and results stay
    attached: a topic's text never changes a stored value); returns (created, updated, unchanged)."""
    existing = stored_rows(Topic.objects.filter(collection=collection), "number", TOPIC_FIELDS)
    return upsert_by_key(Topic, collection, "number", records, existing, TOPIC_FIELDS)


@transaction.atomic
def topic_delete(*, topic: Topic) -> None:
    """Deletes a topic with its rankings, pool, judgments and values; the runs' aggregates are rebuilt without it
    (every topic of the collection is recomputed, since a mean over topics changed)."""
    collection_id = topic.collection_id
    topic.delete()
    signals.collection_changed.send(sender=Topic, collection_id=collection_id, changed=frozenset({"topics"}))
