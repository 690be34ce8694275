"""Collections as the campaign pages show them: the overview, the standing and its figures, the one name of each
account, and the lookups of assessors, topics, runs and documents by the names a person types."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.db.models import Count, Exists, Min, OuterRef, QuerySet, Subquery
from django.db.models.functions import Coalesce

from judging import plugins
from judging.core import rankings as stored
from judging.models import (
    ROLE_ASSESSOR,
    Assignment,
    Collection,
    Document,
    Judgment,
    JudgmentHistory,
    PoolItem,
    Ranking,
    Run,
    Topic,
)
from judging.ordering import selectors as adaptive
from judging.ordering.core.stopping import Standing, TopicInput, campaign_standing
from judging.selectors.inputs import User, collection_adjudications
from judging.sources import selectors as sources
from judging.sources.models import LabelSource


def collection_by_name_or_id(name_or_id: str) -> Collection | None:
    """The collection a command line names, by id (all digits) or else by name."""
    found = Collection.objects.filter(pk=int(name_or_id)).first() if name_or_id.isdigit() else None
    return found or Collection.objects.filter(name=name_or_id).first()


def assessor_names(*, collection: Collection, reveal: bool) -> dict[int, str]:
    """Ids of the accounts that judged in the collection to the one name every page, export and API shows: a machine
    judge by its name, a person by username, or by pseudonym (assessor-1, -2, …) when identities are hidden from the
    reader (people are pseudonymised, machines never: their name is no one's identity). A pseudonym is numbered by
    when the person first judged in the collection (the append-only history), so it never changes when somebody else
    judges or a judgment is removed."""
    current = set(Judgment.objects.filter(topic__collection=collection).values_list("assessor_id", flat=True))
    for labellers in plugins.other_labellers:  # only checks' answers left: still named
        current |= labellers(collection=collection)
    first = (
        JudgmentHistory.objects.filter(topic__collection=collection)
        .values("assessor_id", "assessor__username")
        .annotate(first=Min("id"))
        .order_by("first")
    )
    order = [(row["assessor_id"], row["assessor__username"]) for row in first]
    seen = {pk for pk, _ in order}
    missing = current - seen  # judgments written without history (none through the services)
    order += list(User.objects.filter(pk__in=missing).order_by("pk").values_list("pk", "username"))
    machines = {pk: name for namer in plugins.account_namers for pk, name in namer(collection=collection).items()}
    people = [(pk, name) for pk, name in order if pk not in machines]
    named = {pk: (name if reveal else f"assessor-{number}") for number, (pk, name) in enumerate(people, start=1)}
    return {pk: machines.get(pk) or named[pk] for pk, _ in order if pk in current}


def collection_standing(*, collection: Collection, rankings: Mapping[int, Mapping[int, np.ndarray]]) -> Standing:
    """Where the collection's campaign stands (`stopping.campaign_standing`), from the people's labels
    (`people_labels`: no machine judge's, imported file's or clicks' label) of pooled items, each read as the
    highest grade a person gave. `rankings` is `selectors.collection_rankings` of the collection."""
    tags = dict(Run.objects.filter(collection=collection).values_list("id", "tag"))
    by_topic: dict[int, dict[str, list[int]]] = {}
    for run_id, per_topic in rankings.items():
        for topic_id, documents in per_topic.items():
            by_topic.setdefault(topic_id, {})[tags[run_id]] = documents.tolist()
    pools: dict[int, list[int]] = {}
    for topic_id, document_id in PoolItem.objects.filter(topic__collection=collection).values_list(
        "topic_id", "document_id"
    ):
        pools.setdefault(topic_id, []).append(document_id)
    labels: dict[int, dict[int, int | None]] = {}
    people = sources.people_labels(collection=collection, pooled_only=True).filter(grade__isnull=False)
    rows = people.values_list("topic_id", "document_id", "grade")
    for topic_id, document_id, grade in rows.iterator(chunk_size=5000):
        known = labels.setdefault(topic_id, {})
        known[document_id] = adaptive.higher_label(known.get(document_id), grade)
    topics = [
        TopicInput(number, by_topic.get(topic_id, {}), pools.get(topic_id, []), labels.get(topic_id, {}))
        for topic_id, number in Topic.objects.filter(collection=collection).order_by("id").values_list("id", "number")
    ]
    return campaign_standing(topics, relevance_level=collection.relevance_threshold, seed=collection.id)


def standing_figures(*, collection: Collection, standing: Standing) -> dict:
    """The campaign's standing as figures (the "Where we stand" card and `GET /api/collections/ID/standing/`),
    each counted from the people's labels inside the pool: a machine's, a file's or clicks' label judges nothing
    here, and says so in `items_labelled_only_by_machines`."""
    pooled = PoolItem.objects.filter(topic__collection=collection).count()
    judged = sources.judged_count(collection=collection, by_people=True)
    return {
        "pooled_items": pooled,
        "items_judged_by_people": judged,
        "items_labelled_only_by_machines": items_labelled_only_by_machines(collection=collection),
        "unjudged_by_people": pooled - judged,
        "relevant_found_by_people": standing.relevant_found,
        "estimated_relevant_left": round(standing.relevant_expected_left, 1),
    }


def items_labelled_only_by_machines(*, collection: Collection) -> int:
    """How many pooled items have a grade from a source that is not a person (a machine judge's, an imported
    file's, clicks') and none from a person: not judged by people (`sources.judged`), as the standing counts them."""
    labelled = sources.every_label(collection=collection, pooled_only=True).filter(grade__isnull=False)
    by_machines = PoolItem.objects.filter(
        Exists(labelled.filter(topic_id=OuterRef("topic_id"), document_id=OuterRef("document_id"))),
        topic__collection=collection,
    )
    return by_machines.exclude(sources.judged(by_people=True)).count()


def collections_overview() -> QuerySet[Collection]:
    """Every collection with its size and how many of its pooled items are judged (`sources.judged`), as the
    campaign page counts them: two queries, whatever the number of topics (the dashboard)."""

    def count(queryset, collection_field: str):
        rows = queryset.filter(**{collection_field: OuterRef("pk")}).order_by().values(collection_field)
        return Coalesce(Subquery(rows.annotate(n=Count("pk")).values("n")), 0)

    pool = PoolItem.objects.all()
    return Collection.objects.order_by("name").annotate(
        topic_count=count(Topic.objects.all(), "collection"),
        run_count=count(Run.objects.all(), "collection"),
        pool_size=count(pool, "topic__collection"),
        judged_items=count(pool.filter(sources.judged()), "topic__collection"),
    )


def _all_named(found: list, key, wanted: list[str], field: str, what: str) -> list:
    missing = sorted(set(wanted) - {key(item) for item in found})
    if missing:
        shown = ", ".join(missing[:10]) + (f" and {len(missing) - 10} more" if len(missing) > 10 else "")
        raise ValidationError({field: f"{what}: {shown}"})
    return found


def assessors_named(*, usernames: list[str]) -> list:
    """The users in the assessor role with these usernames; ValidationError naming every one that is not."""
    found = list(get_user_model().objects.filter(groups__name=ROLE_ASSESSOR, username__in=usernames))
    return _all_named(found, lambda u: u.username, usernames, "assessors", "not assessors")


def topics_numbered(*, collection: Collection, numbers: list[str]) -> list[Topic]:
    """The collection's topics with these numbers; ValidationError naming every number it lacks."""
    found = list(Topic.objects.filter(collection=collection, number__in=numbers))
    return _all_named(found, lambda t: t.number, numbers, "topics", f"no such topic(s) in {collection.name}")


def runs_tagged(*, collection: Collection, tags: list[str]) -> list[Run]:
    """The collection's runs with these tags; ValidationError naming every tag it lacks."""
    found = list(Run.objects.filter(collection=collection, tag__in=tags))
    return _all_named(found, lambda r: r.tag, tags, "runs", f"no such run(s) in {collection.name}")


def login_lockouts() -> list[dict]:
    """The login lockouts in force: each (account, address) pair past the failure limit within the cool-off, most
    recent first, with its failures and when it ends (People page)."""
    from axes.models import AccessAttempt
    from django.conf import settings
    from django.utils import timezone

    since = timezone.now() - settings.AXES_COOLOFF_TIME
    rows = AccessAttempt.objects.filter(
        failures_since_start__gte=settings.AXES_FAILURE_LIMIT, attempt_time__gte=since
    ).order_by("-attempt_time")
    return [
        {
            "username": row.username,
            "ip_address": row.ip_address,
            "failures": row.failures_since_start,
            "until": row.attempt_time + settings.AXES_COOLOFF_TIME,
        }
        for row in rows
    ]


def collection_assessors(*, collection: Collection) -> list[tuple[int, str]]:
    """(user id, username) of everyone who judged in the collection or is assigned one of its topics, by name:
    the people an admin may make advisory."""
    judged = Judgment.objects.filter(topic__collection=collection).values_list("assessor_id", flat=True)
    assigned = Assignment.objects.filter(topic__collection=collection).values_list("assessor_id", flat=True)
    sources = LabelSource.objects.filter(collection=collection).values_list("account_id", flat=True)
    ids = set(judged.distinct()) | set(assigned) | set(sources)
    return list(User.objects.filter(pk__in=ids).order_by("username").values_list("pk", "username"))


def collection_gold(*, collection: Collection) -> dict[tuple[int, int], int]:
    """{(topic id, document id): gold grade}: the labels of the collection's gold assessors (an imported reference
    qrels, say), and every adjudicated item, whose grade wins where both give one."""
    gold = {
        (t, d): g
        for t, d, g in sources.gold_labels(collection=collection)
        .filter(grade__isnull=False)
        .values_list("topic_id", "document_id", "grade")
    }
    for topic, documents in collection_adjudications(collection_id=collection.id).items():
        for document, grade in documents.items():
            gold[(topic, document)] = grade
    return gold


def docnos_wanted(*, collection: Collection, top_k: int | None = None) -> set[str]:
    """The docnos a pool-only document import keeps: the collection's pooled documents and, with `top_k`, every
    document some run ranks in a topic's top k."""
    ids = set(PoolItem.objects.filter(topic__collection=collection).values_list("document_id", flat=True))
    if top_k:
        rows = Ranking.objects.filter(run__collection=collection).values_list("document_ids", flat=True)
        for blob in rows.iterator(chunk_size=500):
            ids.update(stored.ids_from_bytes(blob)[:top_k].tolist())
    wanted: set[str] = set()
    listed = list(ids)
    for start in range(0, len(listed), 10_000):
        chunk = listed[start : start + 10_000]
        wanted.update(Document.objects.filter(pk__in=chunk).values_list("docno", flat=True))
    return wanted
