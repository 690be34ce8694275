"""Reads of quality checks (gold items and repeated items mixed, unmarked, into an assessor's judging queue): the
judging page's queue with its checks in place, the progress figures that leave them out, and which check a save
answers.

Blindness: every entry of the page's queue has the same fields, and its `key` is an opaque digest of (assessor,
topic, document, kind), so neither the markup, the page's data nor the save request tells a check from any other
item. The key is what tells the server which entry a save answers: the first label of a document or its repeat.
A waiting check joins the queue only once it is due (it is then the next document), so no check is announced ahead;
the counters count checks as items (judged and total alike), so a check moves them as any save does; and a
document whose repeat is waiting is left out of the assessor's judged list, undo and judgments API until the repeat
is answered, so their first grade cannot be read back to answer it.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.utils.crypto import salted_hmac

from judging import selectors
from judging.models import Adjudication, Collection, Judgment, Topic
from judging.quality.models import AssessorPause, CheckKind, QualityCheck, QualitySettings
from judging.sources import selectors as sources

KEY_SALT = "judging.quality.selectors.entry"


def entry_key(assessor_id: int, topic_id: int, document_id: int, kind: str = "") -> str:
    """The opaque identity of a queue entry: kind "" for the assessor's own item, "gold" or "repeat" for a check."""
    return salted_hmac(KEY_SALT, f"{assessor_id}:{topic_id}:{document_id}:{kind}").hexdigest()[:16]


def quality_settings(collection) -> QualitySettings:
    """A collection's quality settings: its row, or the defaults (no check mixed in, nobody paused) while it has
    none. Read once per collection object (Django keeps the row, or its absence, on it)."""
    try:
        return collection.quality_settings
    except QualitySettings.DoesNotExist:
        return QualitySettings(collection=collection)


SETTINGS = ("pause_below", "pause_window", "gold_rate", "repeat_rate")


def quality_settings_values(*, collection) -> dict:
    settings = quality_settings(collection)
    return {name: getattr(settings, name) for name in SETTINGS}


def checks_on(collection) -> bool:
    settings = quality_settings(collection)
    return bool(settings.gold_rate or settings.repeat_rate)


def pausing(collection) -> bool:
    """Whether the collection pauses assessors who agree too little."""
    return quality_settings(collection).pause_below is not None


@dataclass
class PageQueue:
    """The judging page's entries in order, and the assessor's progress over their own items (checks left out)."""

    entries: list[dict]
    judged: int
    total: int


def _check_entry(check: QualityCheck, docno: str) -> dict:
    answered = check.answered_at is not None
    return {
        "id": check.document_id,
        "docno": docno,
        "judged": answered,
        "grade": check.grade if answered else None,
        "note": check.note if answered else "",
        "reason": check.cannot_judge_reason if answered else "",
        "seconds": check.seconds_spent,
        "key": entry_key(check.assessor_id, check.topic_id, check.document_id, check.kind),
    }


def judging_page_queue(*, assessor_id: int, topic: Topic) -> PageQueue:
    """The assessor's queue (`selectors.judging_queue`) with their checks in place: answered ones after the judged
    entries that open the queue, in answer order; the waiting ones that are due (`due_after` judgments of their own
    made, or nothing else left to judge) next, before the documents still to judge; the rest not yet. Judged and
    total count checks as items; the own entry of a document whose repeat waits is left out (still counted)."""
    own = selectors.judging_queue(assessor_id=assessor_id, topic=topic)
    for entry in own:
        entry["key"] = entry_key(assessor_id, topic.id, entry["id"])
    judged = sum(entry["judged"] for entry in own)
    if not checks_on(topic.collection):
        return PageQueue(own, judged, len(own))
    checks = list(
        QualityCheck.objects.filter(assessor_id=assessor_id, topic=topic)
        .select_related("document")
        .order_by("answered_at", "due_after", "id")
    )
    answered = [_check_entry(c, c.document.docno) for c in checks if c.answered_at is not None]
    waiting = sorted((c for c in checks if c.answered_at is None), key=lambda c: (c.due_after, c.id))
    unjudged = sum(not entry["judged"] for entry in own)
    due = [c for c in waiting if c.due_after <= judged or not unjudged]
    hidden = {c.document_id for c in waiting if c.kind == CheckKind.REPEAT}
    own = [entry for entry in own if not (entry["judged"] and entry["id"] in hidden)]
    opening = next((i for i, entry in enumerate(own) if not entry["judged"]), len(own))
    entries = own[:opening] + answered + [_check_entry(c, c.document.docno) for c in due] + own[opening:]
    return PageQueue(entries, judged + len(answered), judged + unjudged + len(checks))


def repeats_waiting(*, assessor_id: int, topic_ids) -> set[tuple[int, int]]:
    """(topic id, document id) of the assessor's repeat checks not answered yet: their first label stays out of
    their sight (page, undo, API) until the repeat is answered."""
    rows = QualityCheck.objects.filter(
        assessor_id=assessor_id, topic_id__in=topic_ids, kind=CheckKind.REPEAT, answered_at__isnull=True
    )
    return set(rows.values_list("topic_id", "document_id"))


def upcoming_of(queue: PageQueue) -> list[dict]:
    """The entries the assessor has still to judge, next first: what the judging page puts after the current
    document once a save is answered (an adaptive order re-decides; checks come due)."""
    return [{"key": e["key"], "id": e["id"], "docno": e["docno"]} for e in queue.entries if not e["judged"]]


def check_answered_by(*, assessor_id: int, topic: Topic, document_id: int, key: str) -> QualityCheck | None:
    """The check a save with this entry key answers, or None when the key is the assessor's own item's (or none)."""
    if not key or not checks_on(topic.collection):
        return None
    for check in QualityCheck.objects.filter(assessor_id=assessor_id, topic=topic, document_id=document_id):
        if key == entry_key(assessor_id, topic.id, document_id, check.kind):
            return check
    return None


def check_answers(*, collection) -> list[tuple[int, int, int, int, str, object, float]]:
    """(assessor id, topic id, document id, grade, kind, answered at, seconds) of every graded check answer of a
    collection, in answer order: the labels the reliability table, the pause and the labels exports add to the
    judgments."""
    rows = QualityCheck.objects.filter(topic__collection=collection, answered_at__isnull=False, grade__isnull=False)
    return list(
        rows.order_by("answered_at", "id").values_list(
            "assessor_id", "topic_id", "document_id", "grade", "kind", "answered_at", "seconds_spent"
        )
    )


def own_judged_in_order(*, assessor_id: int, topic: Topic) -> list[int]:
    """The documents the assessor graded for the topic, oldest first (what a repeat is drawn from)."""
    return list(
        Judgment.objects.filter(assessor_id=assessor_id, topic=topic, grade__isnull=False)
        .order_by("created_at", "id")
        .values_list("document_id", flat=True)
    )


def open_pause(*, collection_id: int, assessor_id: int) -> AssessorPause | None:
    """The assessor's open pause in the collection (`judging.quality.services.pauses`), or None."""
    return AssessorPause.objects.filter(
        collection_id=collection_id, assessor_id=assessor_id, resumed_at__isnull=True
    ).first()


def check_answerers(*, collection) -> set[int]:
    """The accounts that answered a quality check in the collection (named on the pages even with no judgment)."""
    answered = QualityCheck.objects.filter(topic__collection=collection, answered_at__isnull=False)
    return set(answered.values_list("assessor_id", flat=True))


def gold_reserved(*, collection: Collection, assessor_id: int, topic_ids=None) -> set[tuple[int, int]]:
    """(topic id, document id) of the gold items a collection with a gold rate keeps out of this assessor's own
    queue: they reach a counted assessor only as gold checks (answers measured, never counted), so that gold comes
    at the configured rate whatever k is (with k = 2 a reference's label filled no item, every gold item stayed an
    ordinary item, and no gold check was ever mixed in). Gold and advisory accounts keep every item."""
    if not quality_settings(collection).gold_rate:
        return set()
    if assessor_id in sources.special_accounts(collection=collection):
        return set()
    gold = sources.gold_labels(collection=collection).filter(grade__isnull=False)
    adjudicated = Adjudication.objects.filter(topic__collection=collection)
    if topic_ids is not None:
        gold, adjudicated = gold.filter(topic_id__in=topic_ids), adjudicated.filter(topic_id__in=topic_ids)
    return set(gold.values_list("topic_id", "document_id")) | set(adjudicated.values_list("topic_id", "document_id"))
