"""Small builders for test data, all through the services so tests exercise the real write paths."""

from __future__ import annotations

import itertools

from judging import services

_counter = itertools.count()


def make_collection(*, max_grade=3, threshold=1, topics=2, documents=6, runs=2, depth=4, **settings):
    n = next(_counter)
    settings.setdefault("assessors_per_item", 5)  # room for the several assessors many tests put on one topic
    collection = services.collection_create(
        name=f"c{n}", max_grade=max_grade, relevance_threshold=threshold, **settings
    )
    services.topics_create(
        collection=collection, topics=[{"number": str(t), "title": f"topic {t}"} for t in range(1, topics + 1)]
    )
    services.documents_create(
        collection=collection,
        documents=[{"docno": f"d{i}", "title": f"doc {i}", "body": f"text {i}"} for i in range(documents)],
    )
    for r in range(runs):
        scores = {
            str(t): {f"d{(i + r + t) % documents}": float(depth - i) for i in range(depth)}
            for t in range(1, topics + 1)
        }
        services.run_create(collection=collection, tag=f"run{r}", scores=scores)
    services.pool_build_depth(collection=collection, depth=depth)
    return collection


def make_user(role="assessor"):
    return services.user_create(username=f"{role}{next(_counter)}", password="pw-for-tests-123", role=role)


def stored_values(collection, measures=None) -> dict[tuple[int, int, str], float | None]:
    """{(run id, topic id, measure): value} as the recompute stored them, read through the one reader."""
    from evaluation import selectors

    measures = measures or selectors.stored_measures(collection)
    values = selectors.topic_values(collection_id=collection.id, measures=measures)
    return {
        (run_id, topic_id, measure): value
        for measure, per_run in values.items()
        for run_id, per_topic in per_run.items()
        for topic_id, value in per_topic.items()
    }


def stored_aggregates(collection, measures=None) -> dict[tuple[int, str], tuple[float | None, int]]:
    """{(run id, measure): (aggregate, topics evaluated)} as stored, read through the one reader."""
    from evaluation import selectors

    measures = measures or selectors.stored_measures(collection)
    aggregates = selectors.run_aggregates(collection_id=collection.id, measures=measures)
    return {(run_id, m): pair for run_id, per_measure in aggregates.items() for m, pair in per_measure.items()}
