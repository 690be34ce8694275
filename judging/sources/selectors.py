"""Whose labels count: one selector for each question (the labels that count, the people's, the advisory ones,
the gold ones; the accounts in each role; every source of a collection with its audit trail). Every figure, order,
pause and export reads labels through these, and a rule test fails on a read of `Judgment` rows elsewhere.

An account without a LabelSource row in a collection is a person whose labels count (the default); machine judges,
imported files and clicks get their rows from the services that make them (`judging.sources.services`).
"""

from __future__ import annotations

from dataclasses import dataclass

from django.contrib.auth import get_user_model
from django.db.models import Count, Exists, OuterRef, Q, QuerySet

from judging.models import Collection, Judgment, PoolItem, Topic
from judging.sources.models import LabelSource, LabelSourceChange, SourceKind, SourceRole

User = get_user_model()


def pooled() -> Exists:
    """For a Judgment row: its (topic, document) is pooled."""
    return Exists(PoolItem.objects.filter(topic_id=OuterRef("topic_id"), document_id=OuterRef("document_id")))


def _sources_of_row() -> QuerySet:
    """For a Judgment row: its account's label source in the row's collection (none: a counted person)."""
    return LabelSource.objects.filter(
        collection_id=OuterRef("topic__collection_id"), account_id=OuterRef("assessor_id")
    )


def source_is(*, role: str) -> Exists:
    """For a Judgment row: its account's source in the row's collection has this role."""
    return Exists(_sources_of_row().filter(role=role))


def _labels_of(collection: Collection, condition, *, topic_ids=None, pooled_only: bool = False) -> QuerySet:
    labels = Judgment.objects.filter(condition, topic__collection=collection)
    if topic_ids is not None:
        labels = labels.filter(topic_id__in=topic_ids)
    return labels.filter(pooled()) if pooled_only else labels


def every_label(*, collection: Collection, topic_ids=None, pooled_only: bool = False) -> QuerySet:
    """Every source's judgments in the collection, none left out: what the reliability table and agreement measure
    (each source against the others), what the labels export lists, and what per-assessor counts count."""
    return _labels_of(collection, Q(), topic_ids=topic_ids, pooled_only=pooled_only)


def own_labels(*, assessor_id: int, topic_ids=None) -> QuerySet:
    """An assessor's own judgments, in every collection (theirs to read, never anyone else's)."""
    labels = Judgment.objects.filter(assessor_id=assessor_id)
    return labels.filter(topic_id__in=topic_ids) if topic_ids is not None else labels


def counted_labels(*, collection: Collection, topic_ids=None, pooled_only: bool = False) -> QuerySet:
    """The judgments that count in `collection` (the consensus's input): every label of a source whose role is
    counted or gold (an account without a source row is a person whose labels count); advisory sources (machine
    judges, clicks) are measured, never counted. `pooled_only` keeps the labels of pooled items alone (an imported
    qrels reaches past the pool). The one place this is decided."""
    return _labels_of(collection, _counts(), topic_ids=topic_ids, pooled_only=pooled_only)


def advisory_labels(*, collection: Collection, topic_ids=None, pooled_only: bool = False) -> QuerySet:
    """The judgments of the collection's advisory sources (machine judges among them): shown and measured beside
    the counted ones, never counted."""
    return _labels_of(collection, source_is(role=SourceRole.ADVISORY), topic_ids=topic_ids, pooled_only=pooled_only)


def people_labels(*, collection: Collection, topic_ids=None, pooled_only: bool = False) -> QuerySet:
    """The judgments of people (sources of kind person, and accounts without a source row), whatever their role:
    what "where we stand", the stop signal and the assessors' progress count. No machine's, file's or clicks'."""
    return _labels_of(collection, _by_a_person(), topic_ids=topic_ids, pooled_only=pooled_only)


def judged(*, by_people: bool = False) -> Exists:
    """For a PoolItem row: the item is *judged*, the one meaning of the word on every page and in the API: it has a
    grade that counts (`counted_labels`; a "can't judge" is no grade), as the qrels and Judged@k see it.
    `by_people`: *judged by people*, a person's grade whatever its role (where we stand, the stop signal): a machine's,
    a file's or clicks' grade judges nothing there."""
    grades = Judgment.objects.filter(
        topic_id=OuterRef("topic_id"), document_id=OuterRef("document_id"), grade__isnull=False
    )
    return Exists(grades.filter(_by_a_person() if by_people else _counts()))


def judged_count(*, collection: Collection, by_people: bool = False) -> int:
    """How many of the collection's pooled items are judged (`judged`)."""
    return PoolItem.objects.filter(judged(by_people=by_people), topic__collection=collection).count()


def judged_items(*, collection: Collection, topic_ids=None) -> set[tuple[int, int]]:
    """(topic id, document id) of the judged items (`judged`: a grade that counts), pooled or not."""
    grades = counted_labels(collection=collection, topic_ids=topic_ids).filter(grade__isnull=False)
    return set(grades.values_list("topic_id", "document_id").distinct())


def _counts() -> Exists:
    """For a Judgment row: its label counts (its source is not advisory): `counted_labels`' condition."""
    return ~source_is(role=SourceRole.ADVISORY)


def _by_a_person() -> Exists:
    """For a Judgment row: a person's (a source of kind person, or an account without a source row)."""
    return ~Exists(_sources_of_row().exclude(kind=SourceKind.PERSON))


def counted_grades(grades_by_item: dict, *, advisory) -> dict:
    """`counted_labels` on labels already read, {item: {account id: grade}}: the advisory accounts' grades left out,
    and an item only they labelled with them. What the consensus and every agreement figure are computed from."""
    if not advisory:
        return grades_by_item
    kept = {item: {a: g for a, g in grades.items() if a not in advisory} for item, grades in grades_by_item.items()}
    return {item: grades for item, grades in kept.items() if grades}


def counted_by_account(labels_by_account: dict, *, advisory) -> dict:
    """`counted_labels` on labels already read by account, {account id: labels}: the advisory accounts left out."""
    return {account: labels for account, labels in labels_by_account.items() if account not in advisory}


def advisory_grades(grades_by_item: dict, *, advisory) -> dict:
    """`advisory_labels` on labels already read: the advisory accounts' grades alone (measured, never counted)."""
    if not advisory:
        return {}
    kept = {item: {a: g for a, g in grades.items() if a in advisory} for item, grades in grades_by_item.items()}
    return {item: grades for item, grades in kept.items() if grades}


def gold_labels(*, collection: Collection, topic_ids=None) -> QuerySet:
    """The judgments of the collection's gold sources (an imported reference qrels, say)."""
    return _labels_of(collection, source_is(role=SourceRole.GOLD), topic_ids=topic_ids)


def answer_labels(rows: QuerySet, collection: Collection, *, role: str | None, people: bool = False, topic_ids=None):
    """An answer label table's rows (nugget assignments, support judgments: `rows` is the table's queryset) in
    `collection`, by their account's role (None: every role but advisory, the counted ones) or, with `people`, of
    people whatever their role. The features that own those tables read them through this, so whose answer labels
    count is decided here, as for judgments."""
    sources = LabelSource.objects.filter(
        collection_id=OuterRef("answer__topic__collection_id"), account_id=OuterRef("assessor_id")
    )
    rows = rows.filter(answer__topic__collection=collection)
    if topic_ids is not None:
        rows = rows.filter(answer__topic_id__in=topic_ids)
    if people:
        return rows.filter(~Exists(sources.exclude(kind=SourceKind.PERSON)))
    if role is None:
        return rows.filter(~Exists(sources.filter(role=SourceRole.ADVISORY)))
    return rows.filter(Exists(sources.filter(role=role)))


def accounts_in_role(*, collection: Collection, role: str) -> set[int]:
    """The accounts whose labels have this role in the collection (advisory or gold; counted is everyone else)."""
    return set(LabelSource.objects.filter(collection=collection, role=role).values_list("account_id", flat=True))


def advisory_accounts(*, collection: Collection) -> set[int]:
    return accounts_in_role(collection=collection, role=SourceRole.ADVISORY)


def advisory_accounts_of_topic_query(topic_id: int) -> tuple[str, list]:
    """`advisory_accounts` of a topic's collection as one statement (account ids, one a row), for a reader that
    sends it with others in one round trip (a topic's recompute)."""
    return (
        f"SELECT account_id FROM {LabelSource._meta.db_table} WHERE role = %s "
        f"AND collection_id = (SELECT collection_id FROM {Topic._meta.db_table} WHERE id = %s)",
        [SourceRole.ADVISORY.value, topic_id],
    )


def gold_accounts(*, collection: Collection) -> set[int]:
    return accounts_in_role(collection=collection, role=SourceRole.GOLD)


def special_accounts(*, collection: Collection) -> set[int]:
    """The accounts that are not counted people doing the campaign's work: advisory and gold sources (they take no
    checks and no gold is reserved from them)."""
    return set(
        LabelSource.objects.filter(collection=collection)
        .exclude(role=SourceRole.COUNTED)
        .values_list("account_id", flat=True)
    )


def source_kinds(*, collection: Collection, account_ids) -> dict[int, str]:
    """{account id: its kind in the collection} for these accounts: person where it has no source row."""
    explicit = dict(
        LabelSource.objects.filter(collection=collection, account_id__in=account_ids).values_list("account_id", "kind")
    )
    return {account_id: explicit.get(account_id, SourceKind.PERSON) for account_id in account_ids}


@dataclass(frozen=True)
class SourceRow:
    """One labelling account of a collection as the sources page and the API show it."""

    account_id: int
    name: str
    kind: str
    role: str
    labels: int
    changed_by: str | None
    changed_at: object | None
    history: list


def collection_sources(
    *, collection: Collection, names: dict[int, str] | None = None, reveal: bool = True
) -> list[SourceRow]:
    """Every account that labels in the collection or has a source row in it, with its kind, role, number of
    labels and its audit trail (latest change first), people first then by name; in four queries. `names`, the
    names every page shows (`judging.selectors.assessor_names`, which the caller reads: it reads sources itself);
    an account it lacks is shown by username, or as "account N" unless `reveal`."""

    counts = dict(
        Judgment.objects.filter(topic__collection=collection).values("assessor_id").annotate(n=Count("id"))
        .values_list("assessor_id", "n")
    )  # fmt: skip
    rows = {s.account_id: s for s in LabelSource.objects.filter(collection=collection)}
    changes: dict[int, list] = {}
    for change in LabelSourceChange.objects.filter(source__collection=collection).select_related("changed_by"):
        changes.setdefault(change.source_id, []).insert(0, change)
    usernames = dict(User.objects.filter(pk__in=set(counts) | set(rows)).values_list("pk", "username"))
    found = []
    for account_id, username in usernames.items():
        name = (names or {}).get(account_id) or (username if reveal else f"account {account_id}")
        row = rows.get(account_id)
        history = changes.get(row.pk, []) if row else []
        latest = history[0] if history else None
        found.append(
            SourceRow(
                account_id=account_id,
                name=name,
                kind=row.kind if row else SourceKind.PERSON,
                role=row.role if row else SourceRole.COUNTED,
                labels=counts.get(account_id, 0),
                changed_by=latest.changed_by.username if latest and latest.changed_by else None,
                changed_at=latest.changed_at if latest else None,
                history=history,
            )
        )
    return sorted(found, key=lambda r: (r.kind != SourceKind.PERSON, r.name))


def labels_for_operators() -> QuerySet:
    """Every judgment row, whatever its source counts for: the operators' view (the Django admin), never a figure."""
    return Judgment.objects.all()
