"""Writes of collections and their relevance scale: a collection never exists without its scale; an
evaluation setting's change marks every topic stale."""

from __future__ import annotations

from collections.abc import Sequence

from django.core.exceptions import ValidationError
from django.db import transaction

from judging import plugins, signals
from judging.core.identifiers import dataset_id
from judging.models import MAX_SCALE, Collection, Grade, Judgment
from judging.sources.services import label_roles_set
from measures import canonical_names

# A collection's own columns; a feature's settings live in its own row (`plugins.settings_writers`).
CORE_SETTINGS = frozenset(
    name for field in Collection._meta.concrete_fields for name in (field.name, field.attname)
) - {"id", "created_at"}

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
    created_by=None,
    **settings,
) -> Collection:
    """Creates a collection and its relevance scale (labels default to a sensible wording for the scale).
    `advisory_assessors` and `gold_assessors`, when given, become the accounts' label sources' roles."""
    if not 1 <= max_grade <= MAX_SCALE:
        raise ValidationError({"max_grade": f"the scale must be 0..1 (binary) up to 0..{MAX_SCALE}, got {max_grade}"})
    if not 1 <= relevance_threshold <= max_grade:
        raise ValidationError({"relevance_threshold": f"must be between 1 and {max_grade}"})
    if "measures" in settings:
        settings["measures"] = measures_canonical(settings["measures"])
    if settings.get("ir_datasets_id"):
        settings["ir_datasets_id"] = _dataset_id(settings["ir_datasets_id"])
    roles = {"advisory": settings.pop("advisory_assessors", None), "gold": settings.pop("gold_assessors", None)}
    labels = list(grades) if grades is not None else scale_labels(max_grade)
    if len(labels) != max_grade + 1:
        raise ValidationError({"grades": f"a 0..{max_grade} scale needs {max_grade + 1} labels, got {len(labels)}"})
    features = {name: settings.pop(name) for name in list(settings) if name not in CORE_SETTINGS}
    collection = Collection.objects.create(
        name=name, max_grade=max_grade, relevance_threshold=relevance_threshold, **settings
    )
    plugins.settings_write(collection=collection, changes=features)
    _refuse_unknown(features)
    Grade.objects.bulk_create(
        Grade(collection=collection, value=value, label=label, description=description)
        for value, (label, description) in enumerate(labels)
    )
    if any(accounts is not None for accounts in roles.values()):
        label_roles_set(collection=collection, **roles, changed_by=created_by)
    return collection


def _refuse_unknown(settings: dict) -> None:
    """Refuses a setting no one owns (a feature's that is not installed, a misspelling), naming it."""
    if settings:
        raise ValidationError({name: "not a setting of a collection" for name in settings})


def _dataset_id(text: str) -> str:
    """The bare ir_datasets id of either spelling (irds:… or bare); ValidationError naming the field otherwise."""
    try:
        return dataset_id(text)
    except ValueError as error:
        raise ValidationError({"ir_datasets_id": str(error)}) from error


def measures_canonical(measures) -> list[str]:
    """The canonical names of the measures a user typed, in any spelling (`P@10`, `P.10`, `ndcg_cut.5,10`, `map`),
    expanded and without repeats: what a collection stores, so that every reader finds each value under one name.
    Refuses (ValidationError) an empty list and names the first unknown measure."""
    if not isinstance(measures, list) or not measures or not all(isinstance(m, str) for m in measures):
        raise ValidationError({"measures": "choose at least one measure, by name"})
    for name in measures:
        try:
            canonical_names([name])
        except ValueError as error:
            raise ValidationError({"measures": f"{name!r} is not a measure: {error}"}) from error
    return canonical_names(measures)


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


@transaction.atomic
def collection_settings_update(*, collection: Collection, changed_by=None, **changes) -> Collection:
    """Changes a collection's settings and announces which changed (`signals.collection_changed`, in the same
    transaction: evaluation marks every topic stale when one of its settings is among them). Measures are stored
    by their canonical names, whatever the spelling given. `advisory_assessors` and `gold_assessors` set the
    accounts' label sources' roles (`sources.services.label_roles_set`, with `changed_by` in their trail)."""
    locked = Collection.objects.select_for_update().get(pk=collection.pk)
    if "measures" in changes:
        changes["measures"] = measures_canonical(changes["measures"])
    if changes.get("ir_datasets_id"):
        changes["ir_datasets_id"] = _dataset_id(changes["ir_datasets_id"])
    roles = {"advisory": changes.pop("advisory_assessors", None), "gold": changes.pop("gold_assessors", None)}
    if any(accounts is not None for accounts in roles.values()):  # who counts: label sources, with their trail
        label_roles_set(collection=locked, **roles, changed_by=changed_by)
    changed = plugins.settings_write(collection=locked, changes=changes)
    _refuse_unknown({name: value for name, value in changes.items() if name not in CORE_SETTINGS})
    changed |= {name for name, value in changes.items() if getattr(locked, name) != value}
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
    if changed:
        signals.collection_changed.send(sender=Collection, collection_id=locked.pk, changed=frozenset(changed))
    return locked


@transaction.atomic
def collection_delete(*, collection: Collection) -> None:
    """Deletes a collection with everything in it: topics, documents, runs, pools, judgments and, through
    `signals.collection_deleting`, what other apps keep for it (stored results, search logs and their stores)."""
    signals.collection_deleting.send(sender=Collection, collection_id=collection.pk)
    collection.delete()
