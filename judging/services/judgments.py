"""Writes of judgments: the one write path for a judgment, used by the judging page, the API, imports,
the admin and the demo; each is atomic, keeps the history and marks the topic stale."""

from __future__ import annotations

from django.core.exceptions import PermissionDenied, ValidationError
from django.db import connection, transaction
from django.db.models import F, Value
from django.db.models.functions import Greatest

from config import sql
from judging import plugins, signals
from judging.models import (
    MAX_NOTE_CHARS,
    MAX_REASON_CHARS,
    Assignment,
    AssignmentState,
    Document,
    Judgment,
    JudgmentHistory,
    PoolItem,
    Topic,
)
from judging.sources import selectors as sources


def _validate_text(field: str, value: str, max_chars: int) -> None:
    """Refuses what the database would refuse (NUL) or a column cannot hold, naming the field."""
    if "\x00" in value:
        raise ValidationError({field: "contains a NUL character (often pasted by accident); remove it"})
    if len(value) > max_chars:
        raise ValidationError({field: f"is {len(value):,} characters long; at most {max_chars:,} are kept"})


def _validate_judgment(
    topic: Topic, document: Document, grade: int | None, cannot_judge_reason: str, note: str = ""
) -> None:
    _validate_text("note", note, MAX_NOTE_CHARS)
    _validate_text("cannot_judge_reason", cannot_judge_reason, MAX_REASON_CHARS)
    if document.collection_id != topic.collection_id:
        raise ValidationError(
            {"document": f"document {document.docno!r} belongs to another collection than topic {topic.number!r}"}
        )
    if grade is None:
        if not cannot_judge_reason.strip():
            raise ValidationError({"grade": "give a grade, or a reason why the document cannot be judged"})
        return
    scale = topic.collection.max_grade
    if not isinstance(grade, int) or isinstance(grade, bool) or not 0 <= grade <= scale:
        raise ValidationError({"grade": f"grade {grade!r} is outside this collection's scale 0..{scale}"})


class ItemFull(PermissionDenied):
    """The item already has its collection's k judgments from other assessors (the API answers 409)."""

    http_status, code = 409, "item_full"


def _assignment_and_item(*, assessor, topic: Topic, document: Document) -> tuple[str | None, bool]:
    """(the assessor's assignment state for the topic or None, whether the document is in the topic's pool), in one
    round trip that also locks the pool item's row for the transaction (see `_claim_item_slot`)."""
    lock = " FOR UPDATE" if connection.features.has_select_for_update else ""
    ((state, item),) = sql.fetch(
        f"SELECT (SELECT state FROM {Assignment._meta.db_table} WHERE assessor_id = %s AND topic_id = %s), "
        f"(SELECT id FROM {PoolItem._meta.db_table} WHERE topic_id = %s AND document_id = %s{lock})",
        [assessor.pk, topic.pk, topic.pk, document.pk],
    )
    return state, item is not None


def _claim_item_slot(*, assessor, topic: Topic, document: Document, grade: int | None) -> None:
    """Refuses a grade on an item that already has `assessors_per_item` graded judgments from others (advisory
    assessors' labels, a machine judge's among them, take no slot).

    Counted at the moment a grade is added, so a first "can't judge" (no grade) takes no slot and gives no right to
    one later. Call inside the judgment's transaction, holding the pool item's row lock (`_assignment_and_item`
    takes it, and only that row: not the topic row that a concurrent recompute's foreign-key checks share-lock): it
    serialises assessors racing for the last slot, so that only one of them gets it. The labels are read by a
    statement of their own, after the lock is held, so that they include a racer's committed judgment. An assessor
    changing their own grade always may.
    """
    if grade is None:
        return
    labels = dict(
        sql.fetch(
            f"SELECT assessor_id, grade FROM {Judgment._meta.db_table} WHERE topic_id = %s AND document_id = %s",
            [topic.pk, document.pk],
        )
    )
    if labels.get(assessor.pk) is not None:
        return
    graded = [assessor_id for assessor_id, label in labels.items() if label is not None and assessor_id != assessor.pk]
    # Read only when others graded the item: most saves are an item's first judgment.
    advisory = sources.advisory_accounts(collection=topic.collection) if graded else set()
    others = sum(assessor_id not in advisory for assessor_id in graded)
    k = topic.collection.assessors_per_item
    reserved = plugins.reserved_items(collection=topic.collection, assessor_id=assessor.pk, topic_ids=[topic.pk])
    if others >= k or (topic.pk, document.pk) in reserved:  # a gold item is answered as a check; said as for full
        raise ItemFull(f"document {document.docno} of topic {topic.number} already has its {k} judgment(s)")


def _history(assessor, topic_id, document_id, changed_by, old_grade, new_grade, action, note) -> JudgmentHistory:
    """One row of the append-only history; every write of a judgment, single or bulk, appends one."""
    return JudgmentHistory(
        assessor=assessor,
        topic_id=topic_id,
        document_id=document_id,
        changed_by=changed_by,
        old_grade=old_grade,
        new_grade=new_grade,
        action=action,
        note=note,
    )


@transaction.atomic
def judgment_record(
    *,
    assessor,
    topic: Topic,
    document: Document,
    grade: int | None,
    note: str = "",
    seconds_spent: float = 0.0,
    seconds_total: float | None = None,
    cannot_judge_reason: str = "",
    changed_by=None,
    require_assignment: bool = True,
) -> Judgment:
    """Records (creates or updates) `assessor`'s judgment of `document` for `topic`; the one write path.

    Idempotent: recording the same grade again changes nothing but adds `seconds_spent`. The judging page sends
    `seconds_total` instead, its running total for the document, which only ever raises the stored seconds: a save
    retried after a lost response never counts its time twice. A changed grade is
    appended to the history and marks the topic stale (the recompute is enqueued after commit, never before).
    Raises what a label guard raises (`plugins.label_guards`: AssessorPaused while the assessor is paused),
    ValidationError for a grade outside the collection's scale or a document of another collection, and
    PermissionDenied when `require_assignment` and the assessor is not assigned the topic or the document is not in
    its pool; ItemFull (a PermissionDenied) when the item already has its k judgments from other assessors.
    """
    _validate_judgment(topic, document, grade, cannot_judge_reason, note)
    if require_assignment:
        plugins.refuse_label(collection=topic.collection, assessor=assessor)
    assignment_state = None  # unknown without the check: the state is then moved as it must
    if require_assignment:
        assignment_state, in_pool = _assignment_and_item(assessor=assessor, topic=topic, document=document)
        if assignment_state is None:
            raise PermissionDenied(f"{assessor} is not assigned topic {topic.number}")
        if not in_pool:
            raise PermissionDenied(f"document {document.docno} is not in the pool of topic {topic.number}")
        _claim_item_slot(assessor=assessor, topic=topic, document=document, grade=grade)
    seconds_spent = max(float(seconds_spent or 0.0), 0.0)
    if seconds_total is not None and not 0 <= float(seconds_total) < 1e7:
        raise ValidationError(f"seconds must be between 0 and 10^7, not {seconds_total}")
    lookup = {"assessor": assessor, "topic": topic, "document": document}
    old_grade, action = None, "created"
    judgment = Judgment(
        **lookup,
        grade=grade,
        note=note,
        seconds_spent=seconds_spent if seconds_total is None else seconds_total,
        cannot_judge_reason=cannot_judge_reason if grade is None else "",
    )
    # Inserted first, read only if it exists: most saves of a campaign are an item's first judgment.
    if not sql.insert_if_absent(judgment, unique=("assessor", "topic", "document")):
        judgment = Judgment.objects.select_for_update().get(**lookup)
        action = None
    if action is None:
        old_grade = judgment.grade
        unchanged = (
            old_grade == grade
            and judgment.note == note
            and judgment.cannot_judge_reason == (cannot_judge_reason if grade is None else "")
        )
        Judgment.objects.filter(pk=judgment.pk).update(
            seconds_spent=F("seconds_spent") + seconds_spent
            if seconds_total is None
            else Greatest(F("seconds_spent"), Value(float(seconds_total)))
        )
        if unchanged:
            judgment.refresh_from_db()
            return judgment
        judgment.grade, judgment.note = grade, note
        judgment.cannot_judge_reason = cannot_judge_reason if grade is None else ""
        judgment.save(update_fields=["grade", "note", "cannot_judge_reason", "updated_at"])
        judgment.refresh_from_db()
        action = "cannot_judge" if grade is None else "changed"
    _history(assessor, topic.id, document.id, changed_by or assessor, old_grade, grade, action, note).save()
    if old_grade != grade or action == "created":
        if assignment_state in (None, AssignmentState.ASSIGNED):
            Assignment.objects.filter(assessor=assessor, topic=topic, state=AssignmentState.ASSIGNED).update(
                state=AssignmentState.IN_PROGRESS
            )
        signals.labels_changed.send(sender=Judgment, topic_ids=[topic.id], collection_id=topic.collection_id)
    return judgment


@transaction.atomic
def judgment_delete(
    *, assessor, topic: Topic, document: Document, changed_by=None, require_assignment: bool = False
) -> bool:
    """Deletes a judgment (e.g. undoing a first judgment); records it in the history and marks the topic stale.
    With `require_assignment`, raises PermissionDenied unless the assessor is assigned the topic. An assessor's own
    deletion (no other `changed_by`) is refused with AssessorPaused while they are paused, as every write of theirs
    is; an admin discarding a paused assessor's labels is not."""
    if changed_by is None or changed_by == assessor:
        plugins.refuse_label(collection=topic.collection, assessor=assessor)
    if require_assignment and not Assignment.objects.filter(assessor=assessor, topic=topic).exists():
        raise PermissionDenied(f"{assessor} is not assigned topic {topic.number}")
    judgment = Judgment.objects.select_for_update().filter(assessor=assessor, topic=topic, document=document).first()
    if judgment is None:
        return False
    _history(assessor, topic.id, document.id, changed_by or assessor, judgment.grade, None, "deleted", "").save()
    judgment.delete()
    signals.labels_changed.send(sender=Judgment, topic_ids=[topic.id], collection_id=topic.collection_id)
    return True


@transaction.atomic
def judgments_record_bulk(
    *, labels: dict, changed_by=None, note: str = "", origins: dict | None = None
) -> tuple[int, int, int]:
    """Records many graded judgments at once, {(assessor, topic id, document id): grade} (an import of qrels): new
    ones created, changed grades updated, each change appended to the history with `note`, the topics marked stale
    once. `origins` ({same key: {"file", "line"}, say}) is kept on each label it names, as its provenance. No
    assignment or pool check (imported labels need neither). Returns (created, updated, unchanged)."""
    origins = origins or {}
    assessors = {assessor for assessor, _, _ in labels}
    topic_ids = {topic_id for _, topic_id, _ in labels}
    existing = {
        (j.assessor_id, j.topic_id, j.document_id): j
        for j in Judgment.objects.filter(assessor__in=assessors, topic_id__in=topic_ids)
    }
    new, changed, history = [], [], []
    for (assessor, topic_id, document_id), grade in labels.items():
        judgment = existing.get((assessor.pk, topic_id, document_id))
        origin = origins.get((assessor, topic_id, document_id), {})
        if judgment is not None and judgment.grade == grade:
            continue
        if judgment is None:
            new.append(
                Judgment(assessor=assessor, topic_id=topic_id, document_id=document_id, grade=grade, origin=origin)
            )
        else:
            changed.append(judgment)
        old_grade = judgment.grade if judgment is not None else None
        action = "created" if judgment is None else "changed"
        history.append(
            _history(assessor, topic_id, document_id, changed_by or assessor, old_grade, grade, action, note)
        )
        if judgment is not None:
            judgment.grade, judgment.cannot_judge_reason, judgment.origin = grade, "", origin
    Judgment.objects.bulk_create(new, batch_size=2000)
    Judgment.objects.bulk_update(changed, ["grade", "cannot_judge_reason", "origin"], batch_size=2000)
    JudgmentHistory.objects.bulk_create(history, batch_size=2000)
    signals.labels_changed.send(sender=Judgment, topic_ids=sorted({h.topic_id for h in history}), collection_id=None)
    return len(new), len(changed), len(labels) - len(new) - len(changed)
