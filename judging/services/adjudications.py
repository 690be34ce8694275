"""Writes of adjudications: an admin's label for a disputed item, overriding every consensus method."""

from __future__ import annotations

from django.db import transaction

from judging import signals
from judging.models import Adjudication, Document, Topic
from judging.services.judgments import _validate_judgment


@transaction.atomic
def adjudication_record(*, topic: Topic, document: Document, grade: int, adjudicator, note: str = "") -> Adjudication:
    """Records an admin's label for a disputed item; it overrides every consensus method for that item."""
    _validate_judgment(topic, document, grade, "", note)
    adjudication, _ = Adjudication.objects.update_or_create(
        topic=topic, document=document, defaults={"grade": grade, "adjudicator": adjudicator, "note": note}
    )
    signals.labels_changed.send(sender=Adjudication, topic_ids=[topic.id], collection_id=topic.collection_id)
    return adjudication


@transaction.atomic
def adjudication_delete(*, adjudication: Adjudication) -> None:
    """Withdraws an adjudication: the item's consensus is again the assessors' own, and its topic is recomputed."""
    topic_id, collection_id = adjudication.topic_id, adjudication.topic.collection_id
    adjudication.delete()
    signals.labels_changed.send(sender=Adjudication, topic_ids=[topic_id], collection_id=collection_id)
