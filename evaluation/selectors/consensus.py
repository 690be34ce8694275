"""The labels the results are computed from: each topic's counted labels and adjudications, and the
collection's consensus qrels under its method (advisory sources measured, never counted)."""

from __future__ import annotations

from collections.abc import Iterable

from judging import selectors as judging_selectors
from judging.models import Collection
from judging.sources import selectors as sources
from measures.consensus import collection_consensus

ConsensusInputs = dict[int, tuple[dict[int, dict[int, int]], dict[int, int]]]


def consensus_inputs(*, collection_id: int) -> ConsensusInputs:
    """{topic id: ({document id: {assessor id: grade}}, {document id: adjudicated grade})} for every topic with a
    graded judgment or an adjudication: two queries, whatever the collection's size."""
    judgments = judging_selectors.collection_judgments(collection_id=collection_id)
    adjudicated = judging_selectors.collection_adjudications(collection_id=collection_id)
    topics = set(judgments) | set(adjudicated)
    return {topic: (judgments.get(topic, {}), adjudicated.get(topic, {})) for topic in topics}


def consensus_labels(
    *,
    collection: Collection,
    topic_ids=None,
    inputs: ConsensusInputs | None = None,
    advisory: Iterable[int] | None = None,
) -> dict:
    """The one place the labels every stored value is computed from are made: {topic id: Consensus} (its `labels`
    {document id: grade} and their `confidence`) under the collection's consensus method, primary assessor and
    scale, for each topic with a graded judgment or an adjudication (a topic adjudicated but not judged counts).
    Advisory sources' labels (`judging.sources.selectors.advisory_accounts`) never count here; agreement measures
    them.
    The recompute, the collection-wide agreement, the qrels exports and the pages all call it; `inputs` (from
    `consensus_inputs`, or a recompute's one topic) saves reading them again, as `advisory` (the collection's
    advisory accounts, read with them) does; `topic_ids` keeps those topics only."""
    inputs = consensus_inputs(collection_id=collection.id) if inputs is None else inputs
    wanted = inputs if topic_ids is None else {t: inputs[t] for t in topic_ids if t in inputs}
    advisory = _advisory(collection) if advisory is None else set(advisory)
    return {
        topic: collection_consensus(collection, sources.counted_grades(judgments, advisory=advisory), adjudicated)
        for topic, (judgments, adjudicated) in wanted.items()
    }


def _advisory(collection: Collection) -> set[int]:
    return sources.advisory_accounts(collection=collection)


def consensus_qrels(*, collection: Collection) -> dict[int, dict[int, int]]:
    """{topic id: {document id: consensus grade}}: the labels every stored value was computed from, topics with no
    label left out."""
    return {topic: result.labels for topic, result in consensus_labels(collection=collection).items() if result.labels}
