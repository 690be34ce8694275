"""Reads of the judging world: what the pages, the API and the evaluation pipeline need, in few queries."""

from __future__ import annotations

import functools
import hashlib
from collections import Counter, defaultdict
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.db import connection
from django.db.models import Count, Exists, F, Min, OuterRef, QuerySet, Subquery, Sum
from django.db.models.functions import Coalesce

from config import sql as db
from judging import plugins
from judging.models import (
    ROLE_ASSESSOR,
    Adjudication,
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
from judging.sources import selectors as sources
from judging.sources.models import LabelSource, SourceRole

User = get_user_model()


def collection_by_name_or_id(name_or_id: str) -> Collection | None:
    """The collection a command line names, by id (all digits) or else by name."""
    found = Collection.objects.filter(pk=int(name_or_id)).first() if name_or_id.isdigit() else None
    return found or Collection.objects.filter(name=name_or_id).first()


def topic_judgments(*, topic_id: int) -> dict[int, dict[int, int]]:
    """{document id: {assessor id: grade}} for one topic; judgments without a grade (cannot judge) are left out.
    In SQL of its own: it is on every recompute's path, where building the ORM query cost as much as running it."""
    items: dict[int, dict[int, int]] = defaultdict(dict)
    table = Judgment._meta.db_table
    sql = f"SELECT document_id, assessor_id, grade FROM {table} WHERE topic_id = %s AND grade IS NOT NULL"
    for document_id, assessor_id, grade in db.fetch(sql, [topic_id]):
        items[document_id][assessor_id] = grade
    return dict(items)


def topic_adjudications(*, topic_id: int) -> dict[int, int]:
    """{document id: adjudicated grade} for one topic (SQL of its own, as `topic_judgments`)."""
    return dict(
        db.fetch(f"SELECT document_id, grade FROM {Adjudication._meta.db_table} WHERE topic_id = %s", [topic_id])
    )


def topic_labels(*, topic_id: int) -> tuple[dict[int, dict[int, int]], dict[int, int]]:
    """`topic_judgments` and `topic_adjudications` of one topic in one query (a recompute reads both every time)."""
    return _labels(db.fetch(*_labels_query(topic_id)))


def _labels_query(topic_id: int) -> tuple[str, list]:
    sql = (
        f"SELECT document_id, assessor_id, grade FROM {Judgment._meta.db_table} "
        "WHERE topic_id = %s AND grade IS NOT NULL UNION ALL "
        f"SELECT document_id, NULL, grade FROM {Adjudication._meta.db_table} WHERE topic_id = %s"
    )
    return sql, [topic_id, topic_id]


def _labels(rows) -> tuple[dict[int, dict[int, int]], dict[int, int]]:
    items: dict[int, dict[int, int]] = defaultdict(dict)
    adjudicated: dict[int, int] = {}
    for document_id, assessor_id, grade in rows:
        if assessor_id is None:
            adjudicated[document_id] = grade
        else:
            items[document_id][assessor_id] = grade
    return dict(items), adjudicated


def topic_rankings_name(*, topic_id: int) -> tuple[int, int]:
    """A name for the topic's current rankings: (how many, the largest row id). Runs are immutable once imported
    (replacing one deletes its rankings and inserts new rows), so any import, replacement or deletion changes it."""
    return _rankings_name(db.fetch(*_rankings_name_query(topic_id)))


def topics_rankings_names(*, topic_ids: list[int]) -> dict[int, tuple[int, int]]:
    """`topic_rankings_name` of several topics, in one query."""
    if not topic_ids:
        return {}
    sql = (
        f"SELECT topic_id, COUNT(id), MAX(id) FROM {Ranking._meta.db_table} "
        f"WHERE topic_id IN ({', '.join(['%s'] * len(topic_ids))}) GROUP BY topic_id"
    )
    found = {topic_id: (count, last or 0) for topic_id, count, last in db.fetch(sql, list(topic_ids))}
    return {topic_id: found.get(topic_id, (0, 0)) for topic_id in topic_ids}


def _rankings_name_query(topic_id: int) -> tuple[str, list]:
    return f"SELECT COUNT(id), MAX(id) FROM {Ranking._meta.db_table} WHERE topic_id = %s", [topic_id]


def _rankings_name(rows) -> tuple[int, int]:
    count, last = rows[0]
    return count, last or 0


@dataclass(frozen=True)
class TopicInputs:
    """What a topic's recompute reads of the judging world."""

    collection: Collection
    judgments: dict[int, dict[int, int]]  # {document id: {assessor id: grade}}
    adjudications: dict[int, int]  # {document id: grade}
    rankings_name: tuple[int, int]  # see `topic_rankings_name`
    advisory: frozenset[int]  # `sources.advisory_accounts` of the collection: their labels do not count


def topic_recompute_inputs(*, topic_id: int) -> TopicInputs:
    """The topic's collection, judgments, adjudications, rankings' name and advisory accounts: on PostgreSQL in one
    round trip, as four statements of one query string (a recompute runs on every judgment; each round trip costs
    more than these reads take in the database)."""
    compiler, collection_sql, converters, field_names = _collection_of_topic_query()
    statements = [
        (collection_sql, [topic_id]),
        _labels_query(topic_id),
        _rankings_name_query(topic_id),
        sources.advisory_accounts_of_topic_query(topic_id),
    ]
    collections, labels, name, advisory = db.fetch_each(statements)
    if not collections:
        raise Collection.DoesNotExist(f"no collection has topic {topic_id}")
    row = next(iter(compiler.apply_converters(collections[:1], converters))) if converters else collections[0]
    collection = Collection.from_db(connection.alias, field_names, row)
    return TopicInputs(collection, *_labels(labels), _rankings_name(name), frozenset(a for (a,) in advisory))


@functools.cache
def _collection_of_topic_query():
    """The ORM's own SQL for the topic's collection, compiled once (the topic id is its one parameter), with the
    ORM's conversions of its columns (JSON, booleans and dates as the database returns them)."""
    compiler = Collection.objects.filter(topics__id=0).query.get_compiler(connection.alias)
    sql, params = compiler.as_sql()
    assert list(params) == [0], params
    columns = [column for column, _, _ in compiler.select]
    return compiler, sql, compiler.get_converters(columns), [column.target.attname for column in columns]


def collection_run_ids(*, collection_id: int) -> list[int]:
    """The ids of a collection's runs, ascending (SQL of its own, as `topic_judgments`: every store reads them)."""
    sql = f"SELECT id FROM {Run._meta.db_table} WHERE collection_id = %s ORDER BY id"
    return [run_id for (run_id,) in db.fetch(sql, [collection_id])]


def collection_judgments(*, collection_id: int) -> dict[int, dict[int, dict[int, int]]]:
    """{topic id: {document id: {assessor id: grade}}} for a whole collection, in one streamed query."""
    items: dict[int, dict[int, dict[int, int]]] = defaultdict(lambda: defaultdict(dict))
    rows = Judgment.objects.filter(topic__collection_id=collection_id, grade__isnull=False).values_list(
        "topic_id", "document_id", "assessor_id", "grade"
    )
    for topic_id, document_id, assessor_id, grade in rows.iterator(chunk_size=10_000):
        items[topic_id][document_id][assessor_id] = grade
    return {topic: dict(documents) for topic, documents in items.items()}


def collection_adjudications(*, collection_id: int) -> dict[int, dict[int, int]]:
    """{topic id: {document id: adjudicated grade}}."""
    result: dict[int, dict[int, int]] = defaultdict(dict)
    for topic_id, document_id, grade in Adjudication.objects.filter(topic__collection_id=collection_id).values_list(
        "topic_id", "document_id", "grade"
    ):
        result[topic_id][document_id] = grade
    return dict(result)


def collection_rankings(*, collection_id: int) -> dict[int, dict[int, np.ndarray]]:
    """{run id: {topic id: document ids in trec_eval order}} for every run of a collection, streamed."""
    result: dict[int, dict[int, np.ndarray]] = defaultdict(dict)
    rows = Ranking.objects.filter(run__collection_id=collection_id).values_list("run_id", "topic_id", "document_ids")
    for run_id, topic_id, blob in rows.iterator(chunk_size=500):
        result[run_id][topic_id] = np.frombuffer(bytes(blob), dtype="<i8")
    return dict(result)


def topic_rankings_by_run(*, run_id: int) -> dict[int, np.ndarray]:
    """{topic id: document ids in trec_eval order} for one run."""
    rows = Ranking.objects.filter(run_id=run_id).values_list("topic_id", "document_ids")
    return {topic_id: np.frombuffer(bytes(blob), dtype="<i8") for topic_id, blob in rows}


def topics_rankings(*, topic_ids: list[int]) -> dict[int, dict[int, np.ndarray]]:
    """{topic id: {run id: document ids in trec_eval order}} for these topics: one query."""
    result: dict[int, dict[int, np.ndarray]] = defaultdict(dict)
    rows = Ranking.objects.filter(topic_id__in=topic_ids).values_list("topic_id", "run_id", "document_ids")
    for topic_id, run_id, blob in rows.iterator(chunk_size=500):
        result[topic_id][run_id] = np.frombuffer(bytes(blob), dtype="<i8")
    return dict(result)


def topic_rankings(*, topic_id: int) -> dict[int, np.ndarray]:
    """{run id: document ids in trec_eval order} for every run that retrieved for the topic: one query."""
    rows = Ranking.objects.filter(topic_id=topic_id).values_list("run_id", "document_ids")
    return {run_id: np.frombuffer(bytes(blob), dtype="<i8") for run_id, blob in rows}


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


UNDO_DEPTH = 50


def undo_history(*, assessor_id: int, topic: Topic) -> list[dict]:
    """What the judging page's undo takes back after a reload, oldest first: for each document the assessor judged
    (by their latest change), its state before that change, from the append-only history. One query."""
    rows = JudgmentHistory.objects.filter(assessor_id=assessor_id, topic=topic, changed_by_id=assessor_id).order_by(
        "id"
    )
    previous: dict[int, dict] = {}
    latest: dict[int, tuple[int, dict, str]] = {}
    for row_id, document_id, action, new_grade, note in rows.values_list(
        "id", "document_id", "action", "new_grade", "note"
    ):
        before = previous.get(document_id, {"judged": False, "grade": None, "note": "", "reason": ""})
        latest[document_id] = (row_id, before, action)
        previous[document_id] = (
            {"judged": False, "grade": None, "note": "", "reason": ""}
            if action == "deleted"
            else {"judged": True, "grade": new_grade, "note": note, "reason": ""}
        )
    undoable = sorted((row_id, doc, before) for doc, (row_id, before, action) in latest.items() if action != "deleted")
    return [{"id": doc, "before": before} for _, doc, before in undoable[-UNDO_DEPTH:]]


def next_assigned_topic(*, assessor_id: int, after: Topic) -> Topic | None:
    """The assessor's next assigned topic after `after` (by topic id, wrapping round), for the "next topic" button;
    one query."""
    others = Topic.objects.filter(assignments__assessor_id=assessor_id).exclude(pk=after.pk).order_by("id")
    candidates = list(others.values("id", "number", "title")[:1000])
    chosen = next((t for t in candidates if t["id"] > after.pk), candidates[0] if candidates else None)
    return Topic(**chosen) if chosen else None


def assignments_for_assessor(*, assessor_id: int) -> list[Assignment]:
    """The assessor's assignments with judged/total counts and seconds spent, in four queries whatever their number;
    the total leaves out items others already filled with the collection's k judgments."""
    assignments = list(
        Assignment.objects.filter(assessor_id=assessor_id)
        .select_related("topic__collection")
        .annotate(total=Count("topic__pool_items", distinct=True))
        .order_by("topic__collection__name", "topic__id")
    )
    topic_ids = [a.topic_id for a in assignments]
    judged = {
        row["topic"]: row
        for row in Judgment.objects.filter(sources.pooled(), assessor_id=assessor_id, topic_id__in=topic_ids)
        .values("topic")
        .annotate(n=Count("id"), seconds=Sum("seconds_spent"))
    }
    own = set(
        Judgment.objects.filter(sources.pooled(), assessor_id=assessor_id, topic_id__in=topic_ids).values_list(
            "topic_id", "document_id"
        )
    )
    filled = items_filled_by_others(assessor_id=assessor_id, topic_ids=topic_ids)
    for collection in {a.topic.collection_id: a.topic.collection for a in assignments}.values():
        filled |= gold_reserved(collection=collection, assessor_id=assessor_id, topic_ids=topic_ids)
    closed = Counter(topic_id for topic_id, _ in filled - own)
    for assignment in assignments:
        assignment.total -= closed[assignment.topic_id]
        row = judged.get(assignment.topic_id, {})
        assignment.judged = row.get("n", 0)
        assignment.seconds = row.get("seconds") or 0.0
        assignment.percent = round(100 * assignment.judged / assignment.total) if assignment.total else 0
    return assignments


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
    people = sources.people_labels(collection=collection, pooled_only=True)
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
    by_people = sources.people_labels(collection=collection, pooled_only=True)
    judged = by_people.values("topic_id", "document_id").distinct().count()
    return {
        "pooled_items": pooled,
        "items_judged_by_people": judged,
        "items_labelled_only_by_machines": items_labelled_only_by_machines(collection=collection),
        "unjudged_by_people": pooled - judged,
        "relevant_found_by_people": standing.relevant_found,
        "estimated_relevant_left": round(standing.relevant_expected_left, 1),
    }


def items_labelled_only_by_machines(*, collection: Collection) -> int:
    """How many pooled items have a label from a source that is not a person (a machine judge's, an imported
    file's, clicks') and none from a person: unjudged, as far as the campaign's figures go."""
    pooled_labels = sources.every_label(collection=collection, pooled_only=True)
    people = set(sources.people_labels(collection=collection, pooled_only=True).values_list("topic_id", "document_id"))
    return len(set(pooled_labels.values_list("topic_id", "document_id")) - people)


def items_filled_by_others(*, assessor_id: int, topic_ids: list[int]) -> set[tuple[int, int]]:
    """(topic id, document id) of the pool items that already have their collection's k graded judgments from
    counted sources other than this assessor (advisory sources, machines among them, take no slot): unless the
    assessor judged them too, they are closed to them (the write service refuses them; queues and totals leave them
    out). Only pool items: labels of documents outside the pool (an imported qrels reaches past it) close nothing
    (they once made an assessor's start page read "-3658 documents left")."""
    return set(
        Judgment.objects.filter(
            ~sources.source_is(role=SourceRole.ADVISORY), sources.pooled(), topic_id__in=topic_ids, grade__isnull=False
        )
        .exclude(assessor_id=assessor_id)
        .values("topic_id", "document_id", "topic__collection__assessors_per_item")
        .annotate(n=Count("id"))
        .filter(n__gte=F("topic__collection__assessors_per_item"))
        .values_list("topic_id", "document_id")
    )


def assessor_pace(*, assessor_id: int) -> float | None:
    """The assessor's median seconds per judgment (judgments with time recorded), None before any."""
    seconds = sorted(
        Judgment.objects.filter(assessor_id=assessor_id, seconds_spent__gt=0).values_list("seconds_spent", flat=True)
    )
    return float(np.median(seconds)) if seconds else None


def collections_overview() -> QuerySet[Collection]:
    """Every collection with its size and how much of its pool has a graded judgment from a counted (not
    advisory) assessor, as the campaign page counts it: two queries, whatever the number of topics (the
    dashboard)."""
    judged = Judgment.objects.filter(
        ~sources.source_is(role=SourceRole.ADVISORY),
        topic_id=OuterRef("topic_id"),
        document_id=OuterRef("document_id"),
        grade__isnull=False,
    )

    def count(queryset, collection_field: str):
        rows = queryset.filter(**{collection_field: OuterRef("pk")}).order_by().values(collection_field)
        return Coalesce(Subquery(rows.annotate(n=Count("pk")).values("n")), 0)

    pool = PoolItem.objects.all()
    return Collection.objects.order_by("name").annotate(
        topic_count=count(Topic.objects.all(), "collection"),
        run_count=count(Run.objects.all(), "collection"),
        pool_size=count(pool, "topic__collection"),
        judged_items=count(pool.filter(Exists(judged)), "topic__collection"),
    )


SHUFFLE_BAND = 10  # items of the priority order shuffled together, per assessor, when the collection asks


def _shuffle_key(assessor_id: int, topic_id: int, document_id: int) -> bytes:
    return hashlib.blake2b(f"{assessor_id}:{topic_id}:{document_id}".encode(), digest_size=8).digest()


def _shuffled_in_bands(items: list, key, width: int) -> list:
    return [item for start in range(0, len(items), width) for item in sorted(items[start : start + width], key=key)]


def judging_queue(*, assessor_id: int, topic: Topic) -> list[dict]:
    """The assessor's documents for a topic in judging order, each with their own judgment so far (never anyone
    else's), leaving out items others already filled with the collection's k judgments.

    Static order (best_rank): pool priority; with the collection's shuffling on, each run of SHUFFLE_BAND
    consecutive items is put in an order of its own for every assessor (stable across reloads) so that no position
    effect is shared. Adaptive orders: the assessor's judged documents (as judged), then those others labelled that
    still need this assessor (shuffled in bands likewise, so a second assessor does not follow the first's sequence),
    then the frontier nobody labelled, in the order the strategy proposes now (`adaptive.topic_frontier`); with
    shuffling on, the frontier is dealt in bands as wide as the topic has assessors, each assessor starting at their
    own place, so assessors judging the topic at the same time get different documents. With a verification judge
    (a machine judge whose labels people verify), the documents still to judge come in verification order
    (`plugins.queue_orders`: the machine's likeliest errors first), whatever the judging order."""
    collection = topic.collection
    own = {
        j["document_id"]: j
        for j in Judgment.objects.filter(assessor_id=assessor_id, topic=topic)
        .order_by("created_at", "id")
        .values("document_id", "grade", "note", "cannot_judge_reason", "seconds_spent")
    }
    filled = items_filled_by_others(assessor_id=assessor_id, topic_ids=[topic.id])
    filled |= gold_reserved(collection=collection, assessor_id=assessor_id, topic_ids=[topic.id])
    closed = {d for _, d in filled} - set(own)
    pool = PoolItem.objects.filter(topic=topic).order_by("-priority", "id")
    pool = pool.values_list("document_id", "document__docno")
    items = [item for item in pool if item[0] not in closed]
    shuffle = collection.shuffle_within_priority

    def key(item):
        return _shuffle_key(assessor_id, topic.id, item[0])

    if collection.judging_order == "best_rank":
        if shuffle:
            items = _shuffled_in_bands(items, key, SHUFFLE_BAND)
    else:
        docnos = dict(items)
        frontier = adaptive.topic_frontier(topic=topic, rankings=topic_rankings(topic_id=topic.id))
        unlabelled = set(frontier)
        mine = [(d, docnos[d]) for d in own if d in docnos]
        others = [item for item in items if item[0] not in own and item[0] not in unlabelled]
        upcoming = [(d, docnos[d]) for d in frontier if d in docnos]
        if shuffle:
            others = _shuffled_in_bands(others, key, SHUFFLE_BAND)
            assessors = sorted(Assignment.objects.filter(topic=topic).values_list("assessor_id", flat=True))
            width = max(len(assessors), 1)
            turn = assessors.index(assessor_id) if assessor_id in assessors else 0
            upcoming = [
                item
                for start in range(0, len(upcoming), width)
                for item in _rotated(upcoming[start : start + width], turn)
            ]
        items = mine + others + upcoming
    for order in plugins.queue_orders:  # e.g. the machine's likeliest errors first, after what is judged
        scores = order(topic=topic, rankings=lambda: topic_rankings(topic_id=topic.id))
        if scores is None:
            continue
        waiting = sorted((i for i in items if i[0] not in own), key=lambda item: -scores.get(item[0], 0.0))
        items = [i for i in items if i[0] in own] + waiting
    queue = []
    for document_id, docno in items:
        judgment = own.get(document_id)
        queue.append(
            {
                "id": document_id,
                "docno": docno,
                "judged": judgment is not None,
                "grade": judgment["grade"] if judgment else None,
                "note": judgment["note"] if judgment else "",
                "reason": judgment["cannot_judge_reason"] if judgment else "",
                "seconds": judgment["seconds_spent"] if judgment else 0.0,
            }
        )
    return queue


def _rotated(band: list, turn: int) -> list:
    turn %= max(len(band), 1)
    return band[turn:] + band[:turn]


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


def gold_reserved(*, collection: Collection, assessor_id: int, topic_ids=None) -> set[tuple[int, int]]:
    """(topic id, document id) of the gold items a collection with a gold rate keeps out of this assessor's own
    queue: they reach a counted assessor only as gold checks (answers measured, never counted), so that gold comes
    at the configured rate whatever k is (with k = 2 a reference's label filled no item, every gold item stayed an
    ordinary item, and no gold check was ever mixed in). Gold and advisory accounts keep every item."""
    if not collection.gold_rate:
        return set()
    if assessor_id in sources.special_accounts(collection=collection):
        return set()
    gold = sources.gold_labels(collection=collection).filter(grade__isnull=False)
    adjudicated = Adjudication.objects.filter(topic__collection=collection)
    if topic_ids is not None:
        gold, adjudicated = gold.filter(topic_id__in=topic_ids), adjudicated.filter(topic_id__in=topic_ids)
    return set(gold.values_list("topic_id", "document_id")) | set(adjudicated.values_list("topic_id", "document_id"))


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
            ids.update(np.frombuffer(bytes(blob), dtype="<i8")[:top_k].tolist())
    wanted: set[str] = set()
    listed = list(ids)
    for start in range(0, len(listed), 10_000):
        chunk = listed[start : start + 10_000]
        wanted.update(Document.objects.filter(pk__in=chunk).values_list("docno", flat=True))
    return wanted
