"""Writes of assessor quality control: pausing an assessor whose latest judgments agree too seldom with gold or the
other assessors (the collection's `pause_below` over its `pause_window`), resuming them, and discarding their labels
since a moment, through the judgments write path (history kept, topics recomputed).

The yardstick of each judgment is the gold grade where the item is gold (adjudicated, or labelled by one of the
collection's gold sources), else the consensus of the other counted assessors' labels by the collection's own
method (`measures.consensus.others_consensus`, the yardstick the reliability table reads too); judgments with
neither are not comparable and do not count.
"""

from __future__ import annotations

from datetime import datetime

from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.utils import timezone

from judging import selectors
from judging.models import Collection, Judgment
from judging.quality import selectors as quality_selectors
from judging.quality.models import AssessorPause, CheckKind, QualityCheck
from judging.services.judgments import judgment_delete
from judging.sources import selectors as sources
from measures.consensus import others_consensus


class AssessorPaused(PermissionDenied):
    """The assessor's judging of this collection is paused until an admin resumes it (the API answers 403)."""

    http_status, code = 403, "paused"


PAUSED_MESSAGE = (
    "Your judging of this collection is paused for now: your latest judgments differ from the reference more often "
    "than the campaign allows. Nothing you judged is lost. Please talk to the campaign's admin, who can resume it."
)


def refuse_if_paused(*, collection, assessor) -> None:
    """Raises AssessorPaused when the collection pauses assessors and this one is paused (one query; none when the
    collection has no pause threshold)."""
    if not quality_selectors.pausing(collection):
        return
    if AssessorPause.objects.filter(collection=collection, assessor=assessor, resumed_at__isnull=True).exists():
        raise AssessorPaused(PAUSED_MESSAGE)


def _latest_comparable(collection: Collection, assessor, window: int) -> list[tuple[bool, datetime]]:
    """(agrees with its yardstick, when it was made) for each of the assessor's latest comparable judgments, newest
    first, at most `window`."""
    since = (
        AssessorPause.objects.filter(collection=collection, assessor=assessor, resumed_at__isnull=False)
        .order_by("-resumed_at")
        .values_list("resumed_at", flat=True)
        .first()
    )
    judged = Judgment.objects.filter(topic__collection=collection, assessor=assessor, grade__isnull=False)
    if since is not None:  # what was judged before a resume was weighed then, and is not held against them again
        judged = judged.filter(created_at__gt=since)
    rows = judged.order_by("-created_at", "-id").values_list("topic_id", "document_id", "grade", "created_at")
    answers = QualityCheck.objects.filter(  # gold items mixed into their queue count like any gold item
        topic__collection=collection, assessor=assessor, kind=CheckKind.GOLD, grade__isnull=False
    ).exclude(answered_at__isnull=True)
    if since is not None:
        answers = answers.filter(answered_at__gt=since)
    answers = answers.order_by("-answered_at").values_list("topic_id", "document_id", "grade", "answered_at")
    mine = sorted([*rows[: 5 * window], *answers[: 5 * window]], key=lambda row: row[3], reverse=True)
    keys = {(t, d) for t, d, _, _ in mine}
    gold = {key: g for key, g in selectors.collection_gold(collection=collection).items() if key in keys}
    items: dict[tuple[int, int], dict[int, int]] = {}
    counted = sources.counted_labels(collection=collection, topic_ids={t for t, _ in keys})
    rows = counted.filter(document_id__in={d for _, d in keys}, grade__isnull=False)
    for who, t, d, g in rows.values_list("assessor_id", "topic_id", "document_id", "grade"):
        if (t, d) in keys:
            items.setdefault((t, d), {})[who] = g
    others = others_consensus(
        items, assessor.pk, collection.consensus_method, primary=collection.primary_assessor_id,
        categories=range(collection.max_grade + 1),
    )  # fmt: skip
    reference = others | gold
    return [(grade == reference[(t, d)], at) for t, d, grade, at in mine if (t, d) in reference][:window]


@transaction.atomic
def assessor_pause_check(*, collection: Collection, assessor) -> AssessorPause | None:
    """Pauses the assessor when their latest `pause_window` comparable judgments agree with the yardstick less
    often than `pause_below`; returns the open pause (new or earlier), or None. Advisory assessors (machine
    judges, clicks) are never paused: they are measured, not counted."""
    settings = quality_selectors.quality_settings(collection)
    if settings.pause_below is None or assessor.pk in sources.advisory_accounts(collection=collection):
        return None
    existing = quality_selectors.open_pause(collection_id=collection.pk, assessor_id=assessor.pk)
    if existing is not None:
        return existing
    window = settings.pause_window
    latest = _latest_comparable(collection, assessor, window)
    agreed = sum(hit for hit, _ in latest)
    if len(latest) < window or agreed / window >= settings.pause_below:
        return None
    reason = (
        f"agreed with gold or the other assessors on {agreed} of their last {window} comparable judgments "
        f"({agreed / window:.0%}; the collection pauses below {settings.pause_below:.0%})"
    )
    return AssessorPause.objects.create(
        collection=collection, assessor=assessor, reason=reason, window_start=min(at for _, at in latest)
    )


@transaction.atomic
def assessor_resume(*, pause: AssessorPause, by) -> AssessorPause:
    """Ends a pause: the assessor judges again. Their next judgments are checked afresh, those before the pause
    not again (the check looks only at judgments made since the last resume)."""
    locked = AssessorPause.objects.select_for_update().get(pk=pause.pk)
    if locked.resumed_at is None:
        locked.resumed_at, locked.resumed_by = timezone.now(), by
        locked.save(update_fields=["resumed_at", "resumed_by"])
    return locked


def assessor_labels_discard(*, collection: Collection, assessor, since: datetime, by) -> int:
    """Deletes every judgment the assessor made of the collection since `since`, each through `judgment_delete`
    (its history says who discarded it; its topic is recomputed). Returns how many were discarded."""
    if since > timezone.now():
        raise ValidationError({"since": "choose a moment in the past"})
    discarded = 0
    rows = Judgment.objects.filter(topic__collection=collection, assessor=assessor, created_at__gte=since)
    for judgment in rows.select_related("topic", "document").order_by("id"):
        discarded += judgment_delete(assessor=assessor, topic=judgment.topic, document=judgment.document, changed_by=by)
    return discarded
