"""Writes of adjudications: an admin's label for a disputed item, overriding every consensus method."""

from __future__ import annotations

from django.db import transaction

from evaluation import services as evaluation_services

from ..models import (
    Adjudication,
    Document,
    Topic,
)
from .judgments import _validate_judgment


@transaction.atomic
def adjudication_record(*, topic: Topic, document: Document, grade: int, adjudicator, note: str = "") -> Adjudication:
    """Records an admin's label for a disputed item; it overrides every consensus method for that item."""
    _validate_judgment(topic, document, grade, "", note)
    adjudication, _ = Adjudication.objects.update_or_create(
        topic=topic, document=document, defaults={"grade": grade, "adjudicator": adjudicator, "note": note}
    )
    evaluation_services.topics_changed(topic_ids=[topic.id])
    return adjudication
