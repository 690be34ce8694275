"""Writes of topics."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from django.db import transaction

from evaluation import services as evaluation_services

from ..models import (
    Collection,
    Topic,
)


@transaction.atomic
def topics_create(*, collection: Collection, topics: Iterable[Mapping]) -> list[Topic]:
    """Adds topics ({number, title, description?, narrative?, extra?}); numbers must be new to the collection."""
    return Topic.objects.bulk_create(Topic(collection=collection, **topic) for topic in topics)


@transaction.atomic
def topic_delete(*, topic: Topic) -> None:
    """Deletes a topic with its rankings, pool, judgments and values; the runs' aggregates are rebuilt without it
    (every topic of the collection is recomputed, since a mean over topics changed)."""
    collection_id = topic.collection_id
    topic.delete()
    evaluation_services.collection_changed(collection_id=collection_id)
