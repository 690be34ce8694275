"""Reads for the campaign dashboard and the adjudication queue: progress per topic and assessor, pace, time to
finish and disagreements, from a handful of aggregate queries."""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field
from datetime import datetime, timedelta

import numpy as np
from django.contrib.auth import get_user_model
from django.db.models import Count, Exists, F, Max, Min, OuterRef, Q
from django.utils import timezone

from judging.machines import selectors as machine_selectors
from judging.models import ROLE_ASSESSOR, Adjudication, Assignment, Collection, PoolItem, Topic
from judging.sources import selectors as sources

MIN_RATE_WINDOW = timedelta(minutes=10)


@dataclass
class TopicProgress:
    id: int
    number: str
    title: str
    pool_size: int
    complete: int = 0  # items with their k graded judgments, or adjudicated
    judgments: int = 0
    disagreements: int = 0
    assessors: list[str] = field(default_factory=list)

    @property
    def percent(self) -> int:
        return round(100 * self.complete / self.pool_size) if self.pool_size else 0


@dataclass
class AssessorProgress:
    id: int
    username: str
    topics: int = 0
    judgments: int = 0
    last_hour: int = 0
    median_seconds: float | None = None
    advisory: bool = False  # a machine judge or imported labels: listed, never counted in the campaign's figures
    gullible: dict | None = None  # a machine judge its probes flagged (`gullible_machines`)


@dataclass
class CampaignProgress:
    """A campaign's figures, each defined once and named the same on every page:

    - items: the pool's (topic, document) pairs; items_judged: those judged (`sources.judged`: a grade that
      counts), the dashboard's and the results index's "judged"; items_complete: those with the collection's k
      graded judgments, or adjudicated;
    - labels needed: k per item; labels remaining: what the items still lack (the time to finish is theirs);
    - judgments and last_hour: graded judgments, in total and created in the last hour (a "can't judge" is counted
      apart, in cannot_judge, never in either)."""

    topics: list[TopicProgress]
    assessors: list[AssessorProgress]
    judgments: int
    cannot_judge: int
    last_hour: int
    items: int
    items_judged: int
    items_complete: int
    needed: int
    remaining: int
    median_seconds: float | None
    eta_seconds: float | None
    disagreements: int

    @property
    def percent(self) -> int:
        """Labels done, as a share of the labels needed."""
        return round(100 * (self.needed - self.remaining) / self.needed) if self.needed else 0


def _disagree(low: int, high: int, tolerance: int) -> bool:
    return high - low > tolerance


def campaign_progress(*, collection: Collection, now: datetime | None = None) -> CampaignProgress:
    """The dashboard's figures. An item needs the collection's k graded judgments (an adjudication settles it);
    the time to finish is the labels still needed at the median seconds per judgment, shared by the assessors who
    judged in the last hour (or, when none did, all those assigned)."""
    now = now or timezone.now()
    k, tolerance = collection.assessors_per_item, collection.disagreement_tolerance
    topics = {
        t.id: TopicProgress(id=t.id, number=t.number, title=t.title, pool_size=t.pool_size)
        for t in Topic.objects.filter(collection=collection).annotate(pool_size=Count("pool_items")).order_by("id")
    }
    adjudicated = set(Adjudication.objects.filter(topic__collection=collection).values_list("topic_id", "document_id"))
    pooled = PoolItem.objects.filter(topic_id=OuterRef("topic_id"), document_id=OuterRef("document_id"))
    items = (
        sources.counted_labels(collection=collection)
        .filter(grade__isnull=False)
        .values("topic_id", "document_id")
        .annotate(n=Count("id"), low=Min("grade"), high=Max("grade"), pooled=Exists(pooled))
        .values_list("topic_id", "document_id", "n", "low", "high", "pooled")
    )
    filled, items_judged = Counter(), 0
    for topic_id, document_id, n, low, high, in_pool in items.iterator(chunk_size=10_000):
        topic = topics[topic_id]
        settled = (topic_id, document_id) in adjudicated
        topic.judgments += n
        topic.disagreements += not settled and n > 1 and _disagree(low, high, tolerance)
        if in_pool:  # imported labels outside the pool are no pool work done
            topic.complete += settled or n >= k
            filled[topic_id] += k if settled else min(n, k)
            items_judged += 1  # a pooled item with a grade that counts: `sources.judged`, from the rows read here
    assessors = _assessor_progress(collection, topics, now)
    needed = sum(t.pool_size for t in topics.values()) * k
    remaining = needed - sum(filled.values())
    people = [a for a in assessors if not a.advisory]
    last_hour = sum(a.last_hour for a in people)
    pace = _median_seconds(collection)
    working = sum(1 for a in people if a.last_hour) or sum(1 for a in people if a.topics)
    first_recent = (
        sources.counted_labels(collection=collection)
        .filter(created_at__gte=now - timedelta(hours=1))
        .aggregate(first=Min("created_at"))["first"]
    )
    window = max((now - first_recent).total_seconds() if first_recent else 0, MIN_RATE_WINDOW.total_seconds())
    return CampaignProgress(
        topics=list(topics.values()),
        assessors=assessors,
        judgments=sum(t.judgments for t in topics.values()),
        cannot_judge=sources.counted_labels(collection=collection).filter(grade__isnull=True).count(),
        last_hour=last_hour,
        items=sum(t.pool_size for t in topics.values()),
        items_judged=items_judged,
        items_complete=sum(t.complete for t in topics.values()),
        needed=needed,
        remaining=remaining,
        median_seconds=pace,
        eta_seconds=_eta(remaining, pace, working, last_hour, window / 3600, needed),
        disagreements=sum(t.disagreements for t in topics.values()),
    )


def _eta(
    remaining: int, pace: float | None, working: int, last_hour: int, window_hours: float, needed: int
) -> float | None:
    """Labels left × median seconds per label, shared by the assessors at work; without recorded times (imported
    labels), the recent rate, over at least MIN_RATE_WINDOW so that the first minutes do not extrapolate wildly.
    None (shown as "—") when it cannot be told, and for an empty pool: nothing to finish is not "0 s"."""
    if remaining <= 0:
        return 0.0 if needed else None
    if pace:
        return remaining * pace / max(working, 1)
    if last_hour:
        return 3600.0 * remaining * window_hours / last_hour
    return None


def _median_seconds(collection: Collection, **filters) -> float | None:
    seconds = (
        sources.counted_labels(collection=collection)
        .filter(seconds_spent__gt=0, **filters)
        .values_list("seconds_spent", flat=True)
    )
    values = np.fromiter(seconds.iterator(chunk_size=10_000), dtype=float)
    return float(np.median(values)) if values.size else None


def _assessor_progress(collection: Collection, topics: dict[int, TopicProgress], now: datetime):
    people: dict[int, AssessorProgress] = {}
    for assessor_id, username, topic_id in Assignment.objects.filter(topic__collection=collection).values_list(
        "assessor_id", "assessor__username", "topic_id"
    ):
        person = people.setdefault(assessor_id, AssessorProgress(id=assessor_id, username=username))
        person.topics += 1
        topics[topic_id].assessors.append(username)
    rows = (
        sources.every_label(collection=collection)
        .values("assessor_id", "assessor__username")
        .annotate(
            n=Count("id", filter=Q(grade__isnull=False)),
            recent=Count("id", filter=Q(grade__isnull=False, created_at__gte=now - timedelta(hours=1))),
        )
    )
    advisory = sources.advisory_accounts(collection=collection)
    for row in rows:
        person = people.setdefault(
            row["assessor_id"], AssessorProgress(id=row["assessor_id"], username=row["assessor__username"])
        )
        person.judgments, person.last_hour = row["n"], row["recent"]
        person.advisory = row["assessor_id"] in advisory
    seconds = defaultdict(list)
    timed = sources.every_label(collection=collection).filter(seconds_spent__gt=0)
    for assessor_id, value in timed.values_list("assessor_id", "seconds_spent"):
        seconds[assessor_id].append(value)
    for assessor_id, values in seconds.items():
        people[assessor_id].median_seconds = float(np.median(values))
    # A machine account is shown by its judge's name, as on every page (`judging.selectors.assessor_names`).
    names, gullible = machine_selectors.machines_shown(collection=collection)
    for account_id, name in names.items():
        if account_id in people:
            people[account_id].username = name
            people[account_id].gullible = gullible.get(account_id)
    return sorted(people.values(), key=lambda p: p.username)


@dataclass
class DisputedItem:
    topic: Topic
    document_id: int
    docno: str
    title: str
    labels: list[dict]
    adjudicated: int | None = None
    adjudication_note: str = ""


def _disputed_keys(collection: Collection, adjudicated, include_settled: bool) -> list[tuple[int, int]]:
    tolerance = collection.disagreement_tolerance
    spread = (
        sources.counted_labels(collection=collection)
        .filter(grade__isnull=False)
        .values("topic_id", "document_id")
        .annotate(n=Count("id"), low=Min("grade"), high=Max("grade"))
        .filter(n__gt=1, high__gt=F("low") + tolerance)
        .order_by("topic_id", "document_id")
        .values_list("topic_id", "document_id")
    )
    return [key for key in spread if include_settled or key not in adjudicated]


def disputed_count(*, collection: Collection) -> int:
    """How many disagreements are still open (not adjudicated)."""
    adjudicated = set(Adjudication.objects.filter(topic__collection=collection).values_list("topic_id", "document_id"))
    return len(_disputed_keys(collection, adjudicated, include_settled=False))


def disputed_items(*, collection: Collection, include_settled: bool = False, limit: int = 200) -> list[DisputedItem]:
    """Items whose graded judgments differ by more than the collection's tolerance, with every assessor's grade,
    note and time side by side; the adjudicated ones only with `include_settled`. Topic order, then document."""
    adjudications = {(a.topic_id, a.document_id): a for a in Adjudication.objects.filter(topic__collection=collection)}
    keys = _disputed_keys(collection, adjudications, include_settled)[:limit]
    labels = defaultdict(list)
    wanted = set(keys)
    judgments = (
        sources.counted_labels(collection=collection, topic_ids={t for t, _ in keys})
        .filter(document_id__in={d for _, d in keys}, grade__isnull=False)
        .select_related("assessor", "document", "topic")
        .order_by("assessor__username")
    )
    for j in judgments if keys else ():
        if (j.topic_id, j.document_id) in wanted:
            labels[(j.topic_id, j.document_id)].append(
                {
                    "assessor": j.assessor.username,
                    "grade": j.grade,
                    "note": j.note,
                    "seconds": j.seconds_spent,
                    "document": j.document,
                    "topic": j.topic,
                }
            )
    result = []
    for key in keys:
        rows = labels[key]
        adjudication = adjudications.get(key)
        result.append(
            DisputedItem(
                topic=rows[0]["topic"],
                document_id=key[1],
                docno=rows[0]["document"].docno,
                title=rows[0]["document"].title,
                labels=rows,
                adjudicated=adjudication.grade if adjudication else None,
                adjudication_note=adjudication.note if adjudication else "",
            )
        )
    return result


def assessors():
    """Users in the assessor role, for the assignment forms."""
    return get_user_model().objects.filter(groups__name=ROLE_ASSESSOR).order_by("username")
