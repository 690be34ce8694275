"""The one write an assessor makes from their queue, on the judging page or through the API: an entry judged (or
its judgment taken back), whether the entry is their own item or a quality check, with what follows from it in the
same transaction: checks topped up to the collection's rates, and the pause decided.

One transaction for all of it: a save that is answered is a save that holds, and a step that fails after the write
takes the write back with it (the page once answered 500 for a judgment it had kept, and the API skipped the
checks the page scheduled).
"""

from __future__ import annotations

from dataclasses import dataclass

from django.db import transaction

from judging.models import Document, Topic
from judging.quality import selectors as checking
from judging.quality.services.checks import check_answer_clear, check_answer_record, checks_schedule
from judging.quality.services.pauses import assessor_pause_check
from judging.services.judgments import judgment_delete, judgment_record


@dataclass(frozen=True)
class EntrySaved:
    """What the save did: whether it answered a check (never told to the assessor), and whether the assessor is
    paused after it (this save is kept; their next is refused)."""

    check: bool
    paused: bool


@transaction.atomic
def entry_judge(
    *,
    assessor,
    topic: Topic,
    document: Document,
    entry: str = "",
    grade: int | None = None,
    note: str = "",
    cannot_judge_reason: str = "",
    seconds_total: float | None = None,
    delete: bool = False,
) -> EntrySaved:
    """Judges the queue entry `entry` (its opaque key; empty: the assessor's own item) of `document`, or with
    `delete` takes its judgment back. A check's answer goes beside the assessor's labels (`check_answer_record`),
    an own item's through `judgment_record` or `judgment_delete`; both refuse a paused assessor, an unassigned
    topic and an invalid grade as those do. Then, for every save alike, the assessor's checks are topped up and
    the pause is decided."""
    check = checking.check_answered_by(assessor_id=assessor.pk, topic=topic, document_id=document.pk, key=entry)
    if check is not None and delete:
        check_answer_clear(check=check)
    elif check is not None:
        check_answer_record(
            check=check, grade=grade, note=note, cannot_judge_reason=cannot_judge_reason, seconds_total=seconds_total
        )
    elif delete:
        judgment_delete(assessor=assessor, topic=topic, document=document, require_assignment=True)
    else:
        judgment_record(
            assessor=assessor,
            topic=topic,
            document=document,
            grade=grade,
            note=note,
            cannot_judge_reason=cannot_judge_reason,
            seconds_total=seconds_total,
        )
    if not delete and checking.checks_on(topic.collection):
        checks_schedule(assessor=assessor, topic=topic)
    paused = checking.pausing(topic.collection) and assessor_pause_check(collection=topic.collection, assessor=assessor)
    return EntrySaved(check=check is not None, paused=bool(paused))
