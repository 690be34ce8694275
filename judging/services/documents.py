"""Writes of documents."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from django.db import transaction

from evaluation import services as evaluation_services

from ..models import (
    Adjudication,
    Collection,
    Document,
    Judgment,
)


@transaction.atomic
def documents_create(*, collection: Collection, documents: Iterable[Mapping], batch_size: int = 2000) -> int:
    """Adds documents ({docno, title?, body?, url?, extra?}); returns how many were created."""
    created = Document.objects.bulk_create(
        (Document(collection=collection, **d) for d in documents), batch_size=batch_size
    )
    return len(created)


@transaction.atomic
def document_delete(*, document: Document) -> None:
    """Deletes a document with its judgments and pool items; the topics that had judged it are recomputed. Runs
    keep ranking its id (rankings are immutable): it counts as unjudged, as any document not in the qrels."""
    topic_ids = set(Judgment.objects.filter(document=document).values_list("topic_id", flat=True))
    topic_ids |= set(Adjudication.objects.filter(document=document).values_list("topic_id", flat=True))
    document.delete()
    evaluation_services.topics_changed(topic_ids=topic_ids)
