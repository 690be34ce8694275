"""Writes of documents."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping

from django.db import transaction

from judging import signals
from judging.models import Adjudication, Collection, Document, Judgment
from judging.services._rows import stored_rows, upsert_by_key


@transaction.atomic
def documents_create(
    *, collection: Collection, documents: Iterable[Mapping], batch_size: int = 2000, skip_existing: bool = False
) -> int:
    """Adds documents ({docno, title?, body?, url?, extra?}); returns how many were given. With `skip_existing`, a
    docno the collection has meanwhile (placeholders two uploads make at once) is left as it is, not an error."""
    created = Document.objects.bulk_create(
        (Document(collection=collection, **d) for d in documents), batch_size=batch_size, ignore_conflicts=skip_existing
    )
    return len(created)


DOCUMENT_FIELDS = ["title", "body", "url", "extra"]


@transaction.atomic
def documents_upsert(*, collection: Collection, records, filled: Callable[[int], None] | None = None):
    """Adds documents whose docno is new and updates those whose content changed; returns (created, updated,
    unchanged). Called batch by batch inside the caller's transaction by a streamed import. `filled` is told how
    many of the updated were documents without text (placeholders) given theirs, so a summary can say so."""
    records = list(records)
    wanted = Document.objects.filter(collection=collection, docno__in=[r.docno for r in records])
    existing = stored_rows(wanted, "docno", DOCUMENT_FIELDS)
    if filled is not None:
        empty = {docno for docno, d in existing.items() if not d["body"] and not d["title"]}
        filled(sum(1 for r in records if r.docno in empty and (r.body or r.title)))
    return upsert_by_key(Document, collection, "docno", records, existing, DOCUMENT_FIELDS)


@transaction.atomic
def document_delete(*, document: Document) -> None:
    """Deletes a document with its judgments and pool items; the topics that had judged it are recomputed. Runs
    keep ranking its id (rankings are immutable): it counts as unjudged, as any document not in the qrels."""
    topic_ids = set(Judgment.objects.filter(document=document).values_list("topic_id", flat=True))
    topic_ids |= set(Adjudication.objects.filter(document=document).values_list("topic_id", flat=True))
    document.delete()
    signals.labels_changed.send(sender=Document, topic_ids=sorted(topic_ids), collection_id=document.collection_id)
