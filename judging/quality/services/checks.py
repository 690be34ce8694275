"""Writes of quality checks: scheduling gold items and repeated items into an assessor's queue at the collection's
rates, and recording an assessor's answer to one.

The rules, as the collection settings state them:

- Gold (`gold_rate` r): gold items of the topic (`selectors.collection_gold`: adjudicated items and the gold
  assessors' labels) that are in its pool and that the assessor would otherwise never see (other assessors already
  filled them), so that about r of what the assessor is shown is gold. Gold assessors and advisory assessors get
  none: the first are the reference, the second are measured against everyone anyway.
- Repeats (`repeat_rate` r): about r of the assessor's own graded documents, each drawn from those judged at least
  REPEAT_GAP judgments earlier, and shown again 2 to 6 judgments after it is drawn: some time later, never next to
  the first showing.

An answer is the assessor's, not the item's: it never overwrites their first label, never enters the consensus (so
no metric changes), and measures the assessor (gold accuracy, self-agreement) in the reliability table, the pause
and the labels exports, where it is marked as a gold or repeat answer.
"""

from __future__ import annotations

import random

from django.core.exceptions import PermissionDenied
from django.db import transaction
from django.utils import timezone

from judging.models import Assignment, Judgment, PoolItem, Topic
from judging.quality import selectors as checking
from judging.quality.models import CheckKind, QualityCheck
from judging.quality.services.pauses import refuse_if_paused
from judging.services.judgments import _validate_judgment
from judging.sources import selectors as sources

LEAD = 5  # judgments looked ahead when topping up, so that the first gold item comes early
REPEAT_GAP = 5  # a document is repeated only once the assessor has judged this many others since
DUE_MIN, DUE_MAX = 2, 6  # a check comes due this many judgments after it is scheduled


def _gold_candidates(assessor, topic: Topic, taken: set[int]) -> list[int]:
    """The topic's pooled gold documents the assessor has not judged: kept out of their own queue while the
    collection has a gold rate (`checking.gold_reserved`), they reach them only as gold checks."""
    reserved = checking.gold_reserved(collection=topic.collection, assessor_id=assessor.pk, topic_ids=[topic.pk])
    gold = {d for _, d in reserved}
    if not gold:
        return []
    pooled = set(PoolItem.objects.filter(topic=topic, document_id__in=gold).values_list("document_id", flat=True))
    mine = set(Judgment.objects.filter(assessor=assessor, topic=topic).values_list("document_id", flat=True))
    return sorted(pooled - mine - taken)


@transaction.atomic
def checks_schedule(*, assessor, topic: Topic) -> list[QualityCheck]:
    """Tops up the assessor's checks of the topic to the collection's rates after a judgment; returns those added.
    Idempotent and safe to race (the assignment row is locked; a check exists once)."""
    collection = topic.collection
    if not checking.checks_on(collection) or assessor.pk in sources.special_accounts(collection=collection):
        return []
    if not Assignment.objects.select_for_update().filter(assessor=assessor, topic=topic).exists():
        return []
    judged = checking.own_judged_in_order(assessor_id=assessor.pk, topic=topic)
    n = Judgment.objects.filter(assessor=assessor, topic=topic).count()
    existing = list(QualityCheck.objects.filter(assessor=assessor, topic=topic).values_list("kind", "document_id"))
    rng = random.Random(f"{assessor.pk}:{topic.pk}:{n}")
    added = []
    settings = checking.quality_settings(collection)
    if settings.gold_rate:
        have = sum(kind == CheckKind.GOLD for kind, _ in existing)
        wanted = int(settings.gold_rate / (1 - settings.gold_rate) * (n + LEAD))
        taken = {d for kind, d in existing if kind == CheckKind.GOLD}
        candidates = _gold_candidates(assessor, topic, taken) if wanted > have else []
        for document_id in rng.sample(candidates, min(wanted - have, len(candidates))):
            added.append(QualityCheck(document_id=document_id, kind=CheckKind.GOLD))
    if settings.repeat_rate:
        have = sum(kind == CheckKind.REPEAT for kind, _ in existing)
        wanted = int(settings.repeat_rate * len(judged))
        taken = {d for kind, d in existing if kind == CheckKind.REPEAT}
        candidates = [d for d in judged[: max(len(judged) - REPEAT_GAP, 0)] if d not in taken]
        for document_id in rng.sample(candidates, min(max(wanted - have, 0), len(candidates))):
            added.append(QualityCheck(document_id=document_id, kind=CheckKind.REPEAT))
    for check in added:
        check.assessor, check.topic, check.due_after = assessor, topic, n + rng.randint(DUE_MIN, DUE_MAX)
    return QualityCheck.objects.bulk_create(added, ignore_conflicts=True)


@transaction.atomic
def check_answer_record(
    *,
    check: QualityCheck,
    grade: int | None,
    note: str = "",
    cannot_judge_reason: str = "",
    seconds_total: float | None = None,
) -> QualityCheck:
    """Records (or changes) the assessor's answer to a check, as the judging page saves any judgment: validated as
    one, refused while the assessor is paused, and never touching their first label or the consensus."""
    locked = QualityCheck.objects.select_for_update().select_related("topic__collection", "document").get(pk=check.pk)
    refuse_if_paused(collection=locked.topic.collection, assessor=locked.assessor)
    if not Assignment.objects.filter(assessor_id=locked.assessor_id, topic_id=locked.topic_id).exists():
        raise PermissionDenied(f"{locked.assessor} is not assigned topic {locked.topic.number}")
    _validate_judgment(locked.topic, locked.document, grade, cannot_judge_reason, note)
    locked.grade = grade
    locked.note = note
    locked.cannot_judge_reason = "" if grade is not None else cannot_judge_reason
    if seconds_total is not None:
        locked.seconds_spent = max(float(seconds_total), 0.0)
    if locked.answered_at is None:
        locked.answered_at = timezone.now()
    locked.save()
    return locked


@transaction.atomic
def check_answer_clear(*, check: QualityCheck) -> QualityCheck:
    """Takes back an answer (the judging page's undo): the check waits again where it was. Refused while the
    assessor is paused, as their every write is."""
    locked = QualityCheck.objects.select_for_update().select_related("topic__collection", "assessor").get(pk=check.pk)
    refuse_if_paused(collection=locked.topic.collection, assessor=locked.assessor)
    locked.grade, locked.note, locked.cannot_judge_reason, locked.answered_at = None, "", "", None
    locked.save()
    return locked
