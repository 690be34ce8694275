"""Reads of stored evaluation results for pages, the API and the aggregation step."""

from __future__ import annotations

from collections import defaultdict

from judging.models import Collection, Run
from judging.progress import runs_judged_at_10

from .models import RunValue, TopicAgreement, TopicState


def run_topic_values(*, collection_id: int) -> dict[int, dict[str, list[float | None]]]:
    """{run id: {measure: [per-topic values]}} for a collection, in one query."""
    from .models import TopicValue

    result: dict[int, dict[str, list]] = defaultdict(lambda: defaultdict(list))
    rows = TopicValue.objects.filter(run__collection_id=collection_id).values_list("run_id", "measure", "value")
    for run_id, measure, value in rows:
        result[run_id][measure].append(value)
    return result


LEADERBOARD_KEYS = ("tag", "topics", "judged")


def leaderboard(
    *, collection: Collection, measures: list[str], sort: str = "tag", descending: bool = False
) -> list[dict]:
    """One row per run: {run, values (in `measures` order), topics evaluated, judged (judged@10)}, sorted by `sort`
    (a measure, or one of LEADERBOARD_KEYS); undefined values sort last either way."""
    runs = list(Run.objects.filter(collection=collection).order_by("tag"))
    values: dict[int, dict[str, float | None]] = defaultdict(dict)
    topics: dict[int, int] = {}
    for run_id, measure, value, count in RunValue.objects.filter(
        run__collection=collection, measure__in=measures
    ).values_list("run_id", "measure", "value", "topics"):
        values[run_id][measure] = value
        topics[run_id] = max(topics.get(run_id, 0), count)
    judged = runs_judged_at_10(collection=collection)
    rows = [
        {
            "run": run,
            "values": [values[run.id].get(m) for m in measures],
            "topics": topics.get(run.id, 0),
            "judged": judged.get(run.tag),
        }
        for run in runs
    ]
    if sort == "tag":
        return sorted(rows, key=lambda r: r["run"].tag, reverse=descending)
    if sort in ("topics", "judged"):
        key = lambda r: r[sort]  # noqa: E731
    elif sort in measures:
        column = measures.index(sort)
        key = lambda r: r["values"][column]  # noqa: E731
    else:
        raise ValueError(f"cannot sort by {sort!r}: choose a shown measure or one of {', '.join(LEADERBOARD_KEYS)}")
    defined = sorted((r for r in rows if key(r) is not None), key=key, reverse=descending)
    return defined + [r for r in rows if key(r) is None]


def collection_freshness(*, collection_id: int) -> dict:
    states = TopicState.objects.filter(topic__collection_id=collection_id)
    stale = states.filter(dirty=True).count()
    return {"stale_topics": stale, "fresh": stale == 0}


def collection_agreement_fresh(*, collection_id: int) -> bool:
    """Whether the collection-wide agreement report reflects every judgment (the sweep refreshes it seconds after
    a change)."""
    from .models import CollectionState

    state = CollectionState.objects.filter(collection_id=collection_id).first()
    return state is None or state.fresh


def collection_agreement(*, collection_id: int) -> dict[str, float | None]:
    """Mean of each per-topic agreement statistic over the topics where it is defined."""
    sums: dict[str, list[float]] = defaultdict(list)
    for statistic, value in TopicAgreement.objects.filter(collection_id=collection_id, topic__isnull=False).values_list(
        "statistic", "value"
    ):
        if value is not None:
            sums[statistic].append(value)
    return {name: (sum(v) / len(v) if v else None) for name, v in sums.items()}


def collection_status(*, collection_id: int) -> dict:
    """Whether each topic's stored values are fresh or being recomputed, with the qrels version and settings the
    stored values came from; two queries."""
    from judging.models import Collection, Topic

    from .models import CollectionState
    from .services.storage import settings_key

    collection = Collection.objects.get(pk=collection_id)
    state = CollectionState.objects.filter(collection_id=collection_id).first()
    states = {s.topic_id: s for s in TopicState.objects.filter(topic__collection_id=collection_id)}
    topics = []
    for topic_id, number in Topic.objects.filter(collection_id=collection_id).values_list("id", "number"):
        topic_state = states.get(topic_id)
        topics.append(
            {
                "topic": number,
                "fresh": topic_state.fresh if topic_state else True,
                "generation": topic_state.generation if topic_state else 0,
                "computed_generation": topic_state.computed_generation if topic_state else 0,
                "computed_at": topic_state.computed_at if topic_state else None,
            }
        )
    stale = sum(not t["fresh"] for t in topics)
    return {
        "collection": collection.name,
        "qrels_version": state.qrels_version if state else 0,
        "settings": settings_key(collection),
        "fresh": stale == 0 and (state is None or state.fresh),
        "stale_topics": stale,
        "agreement_fresh": state.fresh if state else True,
        "topics": topics,
    }
