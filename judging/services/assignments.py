"""Assigning topics to assessors: one at a time, balanced with k assessors per item, reassigned, removed."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.db.models import Count

from judging.models import ROLE_ASSESSOR, Assignment, Collection, Topic


def assignment_create(*, assessor, topic: Topic) -> Assignment:
    assignment, _ = Assignment.objects.get_or_create(assessor=assessor, topic=topic)
    return assignment


def _check_assessors(assessors: Sequence) -> None:
    if not assessors:
        raise ValidationError({"assessors": "choose at least one assessor"})
    not_assessors = [str(a) for a in assessors if not a.groups.filter(name=ROLE_ASSESSOR).exists()]
    if not_assessors:
        raise ValidationError({"assessors": f"not in the assessor role: {', '.join(not_assessors)}"})


@transaction.atomic
def assignments_balance(
    *, collection: Collection, assessors: Sequence, topics: Sequence[Topic] | None = None
) -> list[Assignment]:
    """Gives every topic (all of the collection's, or `topics`) `assessors_per_item` distinct assessors from
    `assessors`, spreading the work: topics are taken largest pool first, each going to the assessors with the fewest
    pool items so far (longest-processing-time-first, within 4/3 of the best possible maximum load). Assignments
    that already exist count towards a topic's k and towards the assessors' loads, so re-running after adding topics
    or assessors only adds what is missing. Returns the assignments created."""
    _check_assessors(assessors)
    chosen = {a.pk: a for a in assessors}
    k = min(collection.assessors_per_item, len(chosen))
    topic_rows = Topic.objects.filter(collection=collection).annotate(pool_size=Count("pool_items"))
    if topics is not None:
        topic_rows = topic_rows.filter(pk__in=[t.pk for t in topics])
    topic_rows = sorted(topic_rows, key=lambda t: (-t.pool_size, t.pk))
    existing: dict[int, set[int]] = {}
    load: Counter[int] = Counter({pk: 0 for pk in chosen})
    sizes = {t.pk: t.pool_size for t in topic_rows}
    for assessor_id, topic_id in Assignment.objects.filter(topic__collection=collection).values_list(
        "assessor_id", "topic_id"
    ):
        existing.setdefault(topic_id, set()).add(assessor_id)
        if assessor_id in load:
            load[assessor_id] += sizes.get(topic_id, 0)
    created = []
    for topic in topic_rows:
        have = existing.get(topic.pk, set())
        candidates = sorted((pk for pk in chosen if pk not in have), key=lambda pk: (load[pk], pk))
        for assessor_id in candidates[: max(k - len(have), 0)]:
            created.append(Assignment(assessor=chosen[assessor_id], topic=topic))
            load[assessor_id] += topic.pool_size
    Assignment.objects.bulk_create(created)
    return created


@transaction.atomic
def assignments_add(*, collection: Collection, assessors: Sequence, topics: Sequence[Topic]) -> list[Assignment]:
    """Puts every chosen assessor on every chosen topic, beyond the collection's k if need be: extra assessors on a
    topic share its items (no item gets more than k judgments). Existing assignments are kept; returns the new ones."""
    _check_assessors(assessors)
    if not topics:
        raise ValidationError({"topics": "choose the topics to add the assessors to"})
    topic_ids = [t.pk for t in Topic.objects.filter(collection=collection, pk__in=[t.pk for t in topics])]
    have = set(Assignment.objects.filter(topic_id__in=topic_ids).values_list("assessor_id", "topic_id"))
    created = [
        Assignment(assessor=assessor, topic_id=topic_id)
        for topic_id in topic_ids
        for assessor in assessors
        if (assessor.pk, topic_id) not in have
    ]
    Assignment.objects.bulk_create(created)
    return created


@transaction.atomic
def assignment_reassign(*, assignment: Assignment, assessor) -> Assignment:
    """Hands an assignment to another assessor. Judgments the first assessor already made stay theirs (they are
    real labels, and count in agreement and consensus); the new assessor's queue skips items that already have
    their k judgments."""
    _check_assessors([assessor])
    locked = Assignment.objects.select_for_update().get(pk=assignment.pk)
    if locked.assessor_id == assessor.pk:
        raise ValidationError({"assessor": f"{assessor} already has topic {locked.topic.number}; choose someone else"})
    locked.assessor = assessor
    try:
        with transaction.atomic():
            locked.save(update_fields=["assessor", "updated_at"])
    except IntegrityError as error:
        raise ValidationError({"assessor": f"{assessor} is already assigned topic {locked.topic.number}"}) from error
    return locked


def assignment_delete(*, assignment: Assignment) -> None:
    """Removes an assignment; the assessor's judgments stay."""
    assignment.delete()
