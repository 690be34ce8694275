"""Reads of stored evaluation results for pages, the API and the aggregation step."""

from __future__ import annotations

from collections import defaultdict

from judging.models import Run

from .models import RunValue, TopicAgreement, TopicState


def run_topic_values(*, collection_id: int) -> dict[int, dict[str, list[float | None]]]:
    """{run id: {measure: [per-topic values]}} for a collection, in one query."""
    from .models import TopicValue

    result: dict[int, dict[str, list]] = defaultdict(lambda: defaultdict(list))
    rows = TopicValue.objects.filter(run__collection_id=collection_id).values_list("run_id", "measure", "value")
    for run_id, measure, value in rows:
        result[run_id][measure].append(value)
    return result


def leaderboard(*, collection_id: int, measures: list[str]) -> list[dict]:
    """One row per run: {run, values: {measure: value}, topics}, in two queries."""
    runs = list(Run.objects.filter(collection_id=collection_id).order_by("tag"))
    values: dict[int, dict[str, float | None]] = defaultdict(dict)
    topics: dict[int, int] = {}
    for run_id, measure, value, count in RunValue.objects.filter(
        run__collection_id=collection_id, measure__in=measures
    ).values_list("run_id", "measure", "value", "topics"):
        values[run_id][measure] = value
        topics[run_id] = max(topics.get(run_id, 0), count)
    return [
        {"run": run, "values": [values[run.id].get(m) for m in measures], "topics": topics.get(run.id, 0)}
        for run in runs
    ]


def collection_freshness(*, collection_id: int) -> dict:
    states = TopicState.objects.filter(topic__collection_id=collection_id)
    stale = states.filter(dirty=True).count()
    return {"stale_topics": stale, "fresh": stale == 0}


def collection_agreement(*, collection_id: int) -> dict[str, float | None]:
    """Mean of each per-topic agreement statistic over the topics where it is defined."""
    sums: dict[str, list[float]] = defaultdict(list)
    for statistic, value in TopicAgreement.objects.filter(collection_id=collection_id, topic__isnull=False).values_list(
        "statistic", "value"
    ):
        if value is not None:
            sums[statistic].append(value)
    return {name: (sum(v) / len(v) if v else None) for name, v in sums.items()}
