"""Writes of collections and their relevance scale: a collection never exists without its scale; an
evaluation setting's change marks every topic stale."""

from __future__ import annotations

from collections.abc import Sequence

from django.core.exceptions import ValidationError
from django.db import transaction

from evaluation import services as evaluation_services

from ..models import (
    MAX_SCALE,
    Collection,
    Grade,
    Judgment,
)

DEFAULT_GRADE_LABELS = {
    1: [("Not relevant", "Does not answer the question."), ("Relevant", "Answers the question, at least in part.")],
    3: [
        ("Not relevant", "Unrelated to the question."),
        ("Related", "On topic but does not answer it."),
        ("Relevant", "Answers part of the question."),
        ("Perfect", "Answers the question fully."),
    ],
}


def scale_labels(max_grade: int) -> list[tuple[str, str]]:
    if max_grade in DEFAULT_GRADE_LABELS:
        return DEFAULT_GRADE_LABELS[max_grade]
    return [(f"Grade {g}", "") for g in range(max_grade + 1)]


@transaction.atomic
def collection_create(
    *,
    name: str,
    max_grade: int = 1,
    relevance_threshold: int = 1,
    grades: Sequence[tuple[str, str]] | None = None,
    **settings,
) -> Collection:
    """Creates a collection and its relevance scale (labels default to a sensible wording for the scale)."""
    if not 1 <= max_grade <= MAX_SCALE:
        raise ValidationError({"max_grade": f"the scale must be 0..1 (binary) up to 0..{MAX_SCALE}, got {max_grade}"})
    if not 1 <= relevance_threshold <= max_grade:
        raise ValidationError({"relevance_threshold": f"must be between 1 and {max_grade}"})
    if "measures" in settings:
        _validate_measures(settings["measures"])
    labels = list(grades) if grades is not None else scale_labels(max_grade)
    if len(labels) != max_grade + 1:
        raise ValidationError({"grades": f"a 0..{max_grade} scale needs {max_grade + 1} labels, got {len(labels)}"})
    collection = Collection.objects.create(
        name=name, max_grade=max_grade, relevance_threshold=relevance_threshold, **settings
    )
    Grade.objects.bulk_create(
        Grade(collection=collection, value=value, label=label, description=description)
        for value, (label, description) in enumerate(labels)
    )
    return collection


def _validate_measures(measures) -> None:
    """Every name must parse as a measure of the registry (`P@10`, `nDCG@10`, `ndcg_cut.10`...), or nothing could
    be computed: the refusal names the first unknown one."""
    from evaluation.measures import as_measures

    if not isinstance(measures, list) or not measures or not all(isinstance(m, str) for m in measures):
        raise ValidationError({"measures": "choose at least one measure, by name"})
    for name in measures:
        try:
            as_measures([name])
        except ValueError as error:
            raise ValidationError({"measures": f"{name!r} is not a measure: {error}"}) from error


@transaction.atomic
def collection_scale_update(*, collection: Collection, grades: Sequence[tuple[str, str]]) -> None:
    """Renames the grades of a collection's scale (label, description per value 0..max); the values never change
    here, so no stored result does."""
    if len(grades) != collection.max_grade + 1:
        raise ValidationError({"grades": f"a 0..{collection.max_grade} scale needs {collection.max_grade + 1} labels"})
    for value, (label, description) in enumerate(grades):
        Grade.objects.update_or_create(
            collection=collection, value=value, defaults={"label": label, "description": description}
        )


# Settings whose change alters stored metrics or agreement: evaluation's list, the one its settings key follows.
EVALUATION_SETTINGS = evaluation_services.EVALUATION_SETTINGS


@transaction.atomic
def collection_settings_update(*, collection: Collection, **changes) -> Collection:
    """Changes a collection's settings; if an evaluation setting changed, every topic is marked stale (and so
    recomputed) in the same transaction."""
    locked = Collection.objects.select_for_update().get(pk=collection.pk)
    changed = {name for name, value in changes.items() if getattr(locked, name) != value}
    if "measures" in changed:
        _validate_measures(changes["measures"])
    if "max_grade" in changed:
        if Judgment.objects.filter(topic__collection=locked).exists():
            raise ValidationError({"max_grade": "the scale cannot change once judgments exist; start a new collection"})
        Grade.objects.filter(collection=locked).delete()
        Grade.objects.bulk_create(
            Grade(collection=locked, value=value, label=label, description=description)
            for value, (label, description) in enumerate(scale_labels(changes["max_grade"]))
        )
    for name, value in changes.items():
        setattr(locked, name, value)
    locked.full_clean()
    locked.save()
    if changed & set(EVALUATION_SETTINGS):
        evaluation_services.collection_changed(collection_id=locked.pk)
    return locked
