"""Writes of the judging world. Every write goes through one of these functions, whether it comes from a page, the
API, an import, the demo or a test; each is atomic and tells the evaluation app which topics changed."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

import numpy as np
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import IntegrityError, transaction
from django.db.models import F, Value
from django.db.models.functions import Greatest

from evaluation import services as evaluation_services
from evaluation.measures import trec_order

from .models import (
    MAX_NOTE_CHARS,
    MAX_REASON_CHARS,
    MAX_SCALE,
    ROLE_ADMIN,
    ROLES,
    Adjudication,
    Assignment,
    AssignmentState,
    Collection,
    Document,
    Grade,
    Judgment,
    JudgmentHistory,
    PoolItem,
    Ranking,
    Run,
    Topic,
)
from .pools import pool_build

User = get_user_model()

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


def user_create(*, username: str, password: str, role: str, email: str = "") -> User:
    """Creates a user in one of the roles (admin users are also staff and superusers, for the Django admin)."""
    if role not in ROLES:
        raise ValidationError({"role": f"unknown role {role!r}; choose one of {', '.join(ROLES)}"})
    user = User.objects.create_user(username=username, password=password, email=email)
    if role == ROLE_ADMIN:
        user.is_staff = user.is_superuser = True
        user.save(update_fields=["is_staff", "is_superuser"])
    user.groups.add(Group.objects.get_or_create(name=role)[0])
    return user


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


@transaction.atomic
def topics_create(*, collection: Collection, topics: Iterable[Mapping]) -> list[Topic]:
    """Adds topics ({number, title, description?, narrative?, extra?}); numbers must be new to the collection."""
    return Topic.objects.bulk_create(Topic(collection=collection, **topic) for topic in topics)


@transaction.atomic
def documents_create(*, collection: Collection, documents: Iterable[Mapping], batch_size: int = 2000) -> int:
    """Adds documents ({docno, title?, body?, url?, extra?}); returns how many were created."""
    created = Document.objects.bulk_create(
        (Document(collection=collection, **d) for d in documents), batch_size=batch_size
    )
    return len(created)


@transaction.atomic
def run_create(
    *,
    collection: Collection,
    tag: str,
    scores: Mapping[str, Mapping[str, float]],
    description: str = "",
    owner=None,
    precedence: int = 1,
) -> Run:
    """Stores a run given as {topic number: {docno: score}}: one Ranking row per topic, in trec_eval order.

    Every topic and document must already exist in the collection. All the collection's topics that the run
    retrieves for are marked stale, so their metrics are recomputed.
    """
    topics = dict(Topic.objects.filter(collection=collection).values_list("number", "id"))
    unknown_topics = sorted(set(scores) - set(topics))
    if unknown_topics:
        raise ValidationError({"topic": f"run {tag!r} names topics not in the collection: {unknown_topics[:10]}"})
    wanted = {docno for docs in scores.values() for docno in docs}
    documents = dict(Document.objects.filter(collection=collection, docno__in=wanted).values_list("docno", "id"))
    missing = sorted(wanted - set(documents))
    if missing:
        raise ValidationError({"docno": f"run {tag!r} retrieves documents not in the collection: {missing[:10]}"})
    run = Run.objects.create(
        collection=collection, tag=tag, description=description, owner=owner, precedence=precedence
    )
    rankings = []
    for number, doc_scores in scores.items():
        docnos = list(doc_scores)
        values = np.fromiter(doc_scores.values(), dtype=np.float64, count=len(docnos))
        order = trec_order(docnos, values)
        ids = np.array([documents[d] for d in docnos], dtype="<i8")[order]
        rankings.append(
            Ranking(
                run=run,
                topic_id=topics[number],
                document_ids=ids.tobytes(),
                scores=values[order].astype("<f8").tobytes(),
                depth=len(docnos),
            )
        )
    Ranking.objects.bulk_create(rankings, batch_size=500)
    evaluation_services.topics_changed(topic_ids=[r.topic_id for r in rankings], qrels_changed=False)
    return run


def pool_build_depth(*, collection: Collection, depth: int, runs: Sequence[Run] | None = None) -> int:
    """TREC depth-k pooling (see `pools.pool_build` for every strategy and the preview); returns new items added."""
    return pool_build(collection=collection, strategy="depth", depth=depth, runs=runs, more_assessors=True).added


def assignment_create(*, assessor, topic: Topic) -> Assignment:
    assignment, _ = Assignment.objects.get_or_create(assessor=assessor, topic=topic)
    return assignment


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


def _claim_item_slot(*, assessor, topic: Topic, document: Document, grade: int | None) -> None:
    """Refuses a grade on an item that already has `assessors_per_item` graded judgments from others.

    Counted at the moment a grade is added, so a first "can't judge" (no grade) takes no slot and gives no right to
    one later. Call inside the judgment's transaction: the pool item's row lock (and only its row: `of=self`, so the
    topic row that a concurrent recompute's foreign-key checks share-lock is left alone) serialises assessors racing
    for the last slot, so that only one of them gets it. An assessor changing their own grade always may.
    """
    item = PoolItem.objects.select_for_update(of=("self",)).filter(topic=topic, document=document).first()
    if item is None:
        raise PermissionDenied(f"document {document.docno} is not in the pool of topic {topic.number}")
    if grade is None:
        return
    labels = Judgment.objects.filter(topic=topic, document=document).values_list("assessor_id", "grade")
    others = 0
    for assessor_id, label in labels:
        if assessor_id == assessor.pk:
            if label is not None:
                return
            continue
        others += label is not None
    k = topic.collection.assessors_per_item
    if others >= k:
        raise ItemFull(f"document {document.docno} of topic {topic.number} already has its {k} judgment(s)")


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
    Raises ValidationError for a grade outside the collection's scale or a document of another collection, and
    PermissionDenied when `require_assignment` and the assessor is not assigned the topic or the document is not in
    its pool; ItemFull (a PermissionDenied) when the item already has its k judgments from other assessors.
    """
    _validate_judgment(topic, document, grade, cannot_judge_reason, note)
    if require_assignment:
        if not Assignment.objects.filter(assessor=assessor, topic=topic).exists():
            raise PermissionDenied(f"{assessor} is not assigned topic {topic.number}")
        _claim_item_slot(assessor=assessor, topic=topic, document=document, grade=grade)
    seconds_spent = max(float(seconds_spent or 0.0), 0.0)
    if seconds_total is not None and not 0 <= float(seconds_total) < 1e7:
        raise ValidationError(f"seconds must be between 0 and 10^7, not {seconds_total}")
    lookup = {"assessor": assessor, "topic": topic, "document": document}
    judgment = Judgment.objects.select_for_update().filter(**lookup).first()
    old_grade, action = None, "created"
    if judgment is None:
        try:
            with transaction.atomic():
                judgment = Judgment.objects.create(
                    **lookup,
                    grade=grade,
                    note=note,
                    seconds_spent=seconds_spent if seconds_total is None else seconds_total,
                    cannot_judge_reason=cannot_judge_reason if grade is None else "",
                )
        except IntegrityError:
            # Another request created the same judgment between our read and our insert: update that one.
            judgment = Judgment.objects.select_for_update().get(**lookup)
            action = None
    else:
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
    JudgmentHistory.objects.create(
        **lookup, changed_by=changed_by or assessor, old_grade=old_grade, new_grade=grade, action=action, note=note
    )
    if old_grade != grade or action == "created":
        Assignment.objects.filter(assessor=assessor, topic=topic, state=AssignmentState.ASSIGNED).update(
            state=AssignmentState.IN_PROGRESS
        )
        evaluation_services.topics_changed(topic_ids=[topic.id])
    return judgment


@transaction.atomic
def judgment_delete(
    *, assessor, topic: Topic, document: Document, changed_by=None, require_assignment: bool = False
) -> bool:
    """Deletes a judgment (e.g. undoing a first judgment); records it in the history and marks the topic stale.
    With `require_assignment`, raises PermissionDenied unless the assessor is assigned the topic."""
    if require_assignment and not Assignment.objects.filter(assessor=assessor, topic=topic).exists():
        raise PermissionDenied(f"{assessor} is not assigned topic {topic.number}")
    judgment = Judgment.objects.select_for_update().filter(assessor=assessor, topic=topic, document=document).first()
    if judgment is None:
        return False
    JudgmentHistory.objects.create(
        assessor=assessor,
        topic=topic,
        document=document,
        changed_by=changed_by or assessor,
        old_grade=judgment.grade,
        new_grade=None,
        action="deleted",
    )
    judgment.delete()
    evaluation_services.topics_changed(topic_ids=[topic.id])
    return True


# Settings whose change alters stored metrics or agreement, so that every topic must be recomputed.
EVALUATION_SETTINGS = (
    "relevance_threshold",
    "max_grade",
    "consensus_method",
    "primary_assessor",
    "measures",
    "collection_size",
    "agreement_measure",
)


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


@transaction.atomic
def run_delete(*, run: Run) -> None:
    """Deletes a run and its rankings; the topics it retrieved for are recomputed without it."""
    topic_ids = list(run.rankings.values_list("topic_id", flat=True))
    run.delete()
    evaluation_services.topics_changed(topic_ids=topic_ids, qrels_changed=False)


@transaction.atomic
def topic_delete(*, topic: Topic) -> None:
    """Deletes a topic with its rankings, pool, judgments and values; the runs' aggregates are rebuilt without it
    (every topic of the collection is recomputed, since a mean over topics changed)."""
    collection_id = topic.collection_id
    topic.delete()
    evaluation_services.collection_changed(collection_id=collection_id)


@transaction.atomic
def document_delete(*, document: Document) -> None:
    """Deletes a document with its judgments and pool items; the topics that had judged it are recomputed. Runs
    keep ranking its id (rankings are immutable): it counts as unjudged, as any document not in the qrels."""
    topic_ids = set(Judgment.objects.filter(document=document).values_list("topic_id", flat=True))
    topic_ids |= set(Adjudication.objects.filter(document=document).values_list("topic_id", flat=True))
    document.delete()
    evaluation_services.topics_changed(topic_ids=topic_ids)


@transaction.atomic
def pool_items_delete(*, items) -> int:
    """Takes items out of their topics' judging queues; judgments already made stay (they are real labels)."""
    deleted, _ = PoolItem.objects.filter(pk__in=[item.pk for item in items]).delete()
    return deleted


@transaction.atomic
def adjudication_record(*, topic: Topic, document: Document, grade: int, adjudicator, note: str = "") -> Adjudication:
    """Records an admin's label for a disputed item; it overrides every consensus method for that item."""
    _validate_judgment(topic, document, grade, "", note)
    adjudication, _ = Adjudication.objects.update_or_create(
        topic=topic, document=document, defaults={"grade": grade, "adjudicator": adjudicator, "note": note}
    )
    evaluation_services.topics_changed(topic_ids=[topic.id])
    return adjudication
