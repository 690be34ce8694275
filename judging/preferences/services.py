"""Writes of preference judgments: the one write path for an assessor's comparison of two documents, from the
comparison page, the API or a test; atomic, with history, refused while the assessor is paused."""

from __future__ import annotations

from django.core.exceptions import PermissionDenied, ValidationError
from django.db import IntegrityError, transaction

from judging import plugins
from judging.models import Assignment, Document, PoolItem, Topic
from judging.preferences.models import Preference, PreferenceHistory, PreferenceOutcome
from judging.preferences.selectors import SETTINGS, preference_settings
from judging.quality.services.pauses import refuse_if_paused

ANSWERS = ("better", "equal", "neither")


def _outcome(first: Document, better: Document | None, answer: str) -> str:
    if answer == "equal":
        return PreferenceOutcome.EQUAL
    if answer == "neither":
        return PreferenceOutcome.NEITHER
    return PreferenceOutcome.FIRST if better.pk == first.pk else PreferenceOutcome.SECOND


@transaction.atomic
def preference_record(
    *,
    assessor,
    topic: Topic,
    documents: tuple[Document, Document],
    answer: str,
    better: Document | None = None,
    seconds: float = 0.0,
) -> Preference:
    """Records (or changes) the assessor's comparison of two pooled documents of the topic: `answer` "better" (with
    `better`, one of the two), "equal" or "neither" (both not relevant). The assessor must be assigned the topic."""
    if answer not in ANSWERS:
        raise ValidationError({"answer": f"must be one of {', '.join(ANSWERS)}, not {answer!r}"})
    first, second = sorted(documents, key=lambda d: d.pk)
    if first.pk == second.pk:
        raise ValidationError({"documents": "a document is not compared with itself"})
    if answer == "better" and (better is None or better.pk not in (first.pk, second.pk)):
        raise ValidationError({"better": "name which of the two documents is better"})
    refuse_if_paused(collection=topic.collection, assessor=assessor)
    if not Assignment.objects.filter(assessor=assessor, topic=topic).exists():
        raise PermissionDenied(f"{assessor} is not assigned topic {topic.number}")
    pooled = set(PoolItem.objects.filter(topic=topic, document__in=[first, second]).values_list("document", flat=True))
    if pooled != {first.pk, second.pk}:
        raise PermissionDenied(f"both documents must be in the pool of topic {topic.number}")
    outcome = _outcome(first, better, answer)
    key = {"assessor": assessor, "topic": topic, "first": first, "second": second}
    existing = Preference.objects.select_for_update().filter(**key).first()
    if existing is None:
        try:
            with transaction.atomic():
                existing = Preference.objects.create(**key, outcome=outcome, seconds_spent=max(seconds, 0.0))
                old = ""
        except IntegrityError:  # the same assessor's second tab raced this one: update what it stored
            existing = Preference.objects.select_for_update().get(**key)
            old = existing.outcome
    else:
        old = existing.outcome
    if old:
        existing.outcome = outcome
        existing.seconds_spent = max(seconds, existing.seconds_spent)
        existing.save(update_fields=["outcome", "seconds_spent", "updated_at"])
    PreferenceHistory.objects.create(**key, changed_by=assessor, old_outcome=old, new_outcome=outcome)
    return existing


@transaction.atomic
def preference_delete(*, preference: Preference, changed_by) -> None:
    """Takes a comparison back (the page's undo), with history."""
    PreferenceHistory.objects.create(
        assessor_id=preference.assessor_id,
        topic_id=preference.topic_id,
        first_id=preference.first_id,
        second_id=preference.second_id,
        changed_by=changed_by,
        old_outcome=preference.outcome,
        new_outcome="",
    )
    preference.delete()


def preference_settings_update(*, collection, changes: dict) -> set[str]:
    """Takes the judging mode and tournament size out of `changes` and stores them in the collection's row (made on
    the first change); ValidationError names the field. Returns the names whose value changed."""
    row = preference_settings(collection)
    changed = plugins.settings_applied(row, {name: changes.pop(name) for name in SETTINGS if name in changes})
    if changed:
        row.save()
    return changed
