"""Writes of nugget assignments: an assessor's (or a machine's) label of whether an answer holds a nugget, with its
history, and an admin's adjudication where people disagree. Each announces `signals.answers_changed` for the topic
in its transaction."""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction

from judging import signals
from judging.rag.models.answers import Answer
from judging.rag.models.nuggets import (
    AssignmentAdjudication,
    AssignmentHistory,
    AssignmentLabel,
    Nugget,
    NuggetAssignment,
)

PEOPLE_LABELS = (AssignmentLabel.SUPPORT, AssignmentLabel.PARTIAL, AssignmentLabel.NOT_SUPPORT)


def _checked(answer: Answer, nugget: Nugget, label: str, labels) -> None:
    if label not in labels:
        raise ValidationError({"label": f"{label!r} is not one of {', '.join(labels)}"})
    if nugget.topic_id != answer.topic_id:
        raise ValidationError({"nugget": "the nugget belongs to another topic than the answer"})
    if nugget.removed or not nugget.accepted:
        raise ValidationError({"nugget": "the nugget is removed or not yet accepted"})


def _upsert(assessor, answer: Answer, nugget: Nugget, label: str, reply: str) -> tuple[NuggetAssignment, str]:
    """The row written and its label before (blank: new). Two saves of one key at once: one inserts, the other finds
    its row on the unique constraint and updates it; none is lost or doubled."""
    key = {"assessor": assessor, "answer": answer, "nugget": nugget}
    row = NuggetAssignment.objects.select_for_update().filter(**key).first()
    if row is None:
        try:
            with transaction.atomic():
                return NuggetAssignment.objects.create(**key, label=label, reply=reply), ""
        except IntegrityError:
            row = NuggetAssignment.objects.select_for_update().get(**key)
    old = row.label
    if old != label or row.reply != reply:
        row.label, row.reply = label, reply
        row.save(update_fields=["label", "reply", "updated_at"])
    return row, old


@transaction.atomic
def assignment_record(*, assessor, answer: Answer, nugget: Nugget, label: str) -> NuggetAssignment:
    """Records (or changes) a person's label of the nugget on the answer: support, partial_support or
    not_support. The nugget must be the answer's topic's, accepted and not removed."""
    _checked(answer, nugget, label, PEOPLE_LABELS)
    row, old = _upsert(assessor, answer, nugget, label, "")
    if old != label:
        AssignmentHistory.objects.create(
            assessor=assessor, answer=answer, nugget=nugget, old_label=old, new_label=label
        )
        signals.answers_changed.send(sender=NuggetAssignment, topic_ids=[answer.topic_id], collection_id=None)
    return row


@transaction.atomic
def assignments_record_machine(*, account, answer: Answer, labels: list[tuple[Nugget, str]], reply: str) -> int:
    """Records a machine's labels of an answer's nuggets from one reply (a failed call: "failed" for each), in one
    transaction. Returns how many changed."""
    changed = 0
    for nugget, label in labels:
        _checked(answer, nugget, label, AssignmentLabel.values)
        _, old = _upsert(account, answer, nugget, label, reply)
        if old != label:
            AssignmentHistory.objects.create(
                assessor=account, answer=answer, nugget=nugget, old_label=old, new_label=label
            )
            changed += 1
    if changed:
        signals.answers_changed.send(sender=NuggetAssignment, topic_ids=[answer.topic_id], collection_id=None)
    return changed


@transaction.atomic
def assignment_adjudicate(*, answer: Answer, nugget: Nugget, label: str | None, adjudicator) -> None:
    """Settles the nugget's label on the answer (it wins over the assessors' votes); None withdraws the decision."""
    if label is None:
        deleted, _ = AssignmentAdjudication.objects.filter(answer=answer, nugget=nugget).delete()
        if not deleted:
            return
    else:
        _checked(answer, nugget, label, PEOPLE_LABELS)
        AssignmentAdjudication.objects.update_or_create(
            answer=answer, nugget=nugget, defaults={"label": label, "adjudicator": adjudicator}
        )
    signals.answers_changed.send(sender=AssignmentAdjudication, topic_ids=[answer.topic_id], collection_id=None)
