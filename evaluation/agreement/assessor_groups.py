"""Reads for "whose labels count?": each run's measure averaged over the assessors' own label sets (each counted
assessor a judgment group, as trec_eval's `*_avgjg` average over groups), beside its value under the consensus.
Computed on demand by `measures.judgment_groups`, cached for as long as the collection's results version stands."""

from __future__ import annotations

import numpy as np

from evaluation import ranking_cache
from evaluation.cached_reads import cached_for_version
from evaluation.selectors import engine_options, results_version, run_aggregates
from judging import selectors as judging_selectors
from judging.models import Collection, Run, Topic
from judging.sources import selectors as sources
from measures import PreparedQrels, aggregate, parse_measure
from measures.judgment_groups import averaged_over_groups


def averaged_over_assessors(*, collection: Collection, measure: str) -> list[dict]:
    """[{run, consensus, averaged, difference, topics}] by run tag: `measure` under the consensus (the stored
    value) and averaged over each topic's counted assessors' own labels, then over the topics they labelled."""
    version = results_version(collection=collection)
    return cached_for_version(f"avgjg:{collection.pk}:{measure}", version, lambda: _averaged(collection, measure))


def _averaged(collection: Collection, measure: str) -> list[dict]:
    parsed = parse_measure(measure)
    advisory = sources.advisory_accounts(collection=collection)
    groups: dict[int, dict[int, dict[int, int]]] = {}
    for topic, documents in judging_selectors.collection_judgments(collection_id=collection.id).items():
        for document, grades in documents.items():
            for who, grade in grades.items():
                if who not in advisory:
                    groups.setdefault(topic, {}).setdefault(who, {})[document] = grade
    topic_ids = list(Topic.objects.filter(collection=collection).order_by("id").values_list("id", flat=True))
    runs = ranking_cache.collection_runs(topic_ids=topic_ids)
    values = averaged_over_groups(
        groups, runs, [parsed], prepare=PreparedQrels.from_mapping, topic_key=int, **engine_options(collection)
    ) if groups and len(runs.tags) else {}  # fmt: skip
    stored = run_aggregates(collection_id=collection.id, measures=[measure])
    rows = []
    for run in Run.objects.filter(collection=collection).order_by("tag"):
        per_topic = values.get(str(run.id), {})
        averaged = aggregate(parsed, np.array([v[0] for v in per_topic.values()])) if per_topic else None
        consensus = stored.get(run.id, {}).get(measure, (None, 0))[0]
        difference = None if averaged is None or consensus is None else averaged - consensus
        rows.append({"run": run.tag, "consensus": consensus, "averaged": averaged, "difference": difference,
                     "topics": len(per_topic)})  # fmt: skip
    return rows
