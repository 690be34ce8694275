"""Measures estimated from sampled pools: exact with a full sample, unbiased over many samples, honest intervals."""

from __future__ import annotations

import numpy as np
import pytest

from evaluation.analysis.core.estimates import SampledTopic, sampled_estimates
from judging.ordering.core.pool_strategies import depth_pool, sampled_pool
from measures import PreparedQrels, PreparedRun, evaluate


def collection(seed: int, topics: int = 8, runs: int = 4, depth: int = 40):
    rng = np.random.default_rng(seed)
    rankings, labels = {}, {}
    for t in range(topics):
        relevant = {int(d): int(rng.choice([1, 2])) for d in rng.permutation(200)[:25]}
        labels[t] = {d: relevant.get(d, 0) for d in range(200)}
        rankings[t] = {}
        for r in range(runs):
            scores = np.array([(1.5 + r * 0.4) * relevant.get(d, 0) for d in range(200)]) + rng.normal(0, 1, 200)
            rankings[t][f"r{r}"] = np.argsort(-scores)[:depth].tolist()
    return rankings, labels


def truth(rankings, labels, depth):
    """trec_eval's values with the depth-k union judged in full."""
    qrels = {}
    for t, per_run in rankings.items():
        union = {c.document for c in depth_pool(per_run, depth=depth)}
        qrels[t] = {d: labels[t][d] for d in union}
    runs = [PreparedRun.from_rankings(tag, {t: rankings[t][tag] for t in rankings}) for tag in rankings[0]]
    result = evaluate(PreparedQrels.from_mapping(qrels), runs, ["AP", "P@10", "nDCG@10"])
    return {tag: [result.aggregate(tag, m) for m in ("AP", "P@10", "nDCG@10")] for tag in result.runs}


def sampled_topics(rankings, labels, depth, seed, judged_share=1.0):
    rng = np.random.default_rng(seed + 10_000)
    topics = []
    for t, per_run in rankings.items():
        sample = {c.document: (c.stratum, c.inclusion) for c in sampled_pool(per_run, depth=depth, seed=seed * 97 + t)}
        judged = [d for d in sample if rng.random() < judged_share] if judged_share < 1 else list(sample)
        topics.append(SampledTopic(per_run, sample, {d: labels[t][d] for d in judged}))
    return topics


def test_a_fully_sampled_pool_estimates_trec_evals_values_exactly():
    rankings, labels = collection(1)
    topics = [
        SampledTopic(per_run, {c.document: (1, 1.0) for c in depth_pool(per_run, depth=40)}, {})
        for per_run in rankings.values()
    ]
    topics = [SampledTopic(t.rankings, t.sample, {d: labels[i][d] for d in t.sample}) for i, t in enumerate(topics)]
    got = sampled_estimates(topics, replicates=20)
    for tag, values in truth(rankings, labels, 40).items():
        ours = [got[tag][name].value for name in ("statAP", "P@10", "nDCG@10")]
        assert ours == pytest.approx(values, abs=1e-12)
        assert got[tag]["statAP"].low == pytest.approx(values[0])  # nothing sampled: no uncertainty


def test_estimates_from_sampled_pools_are_unbiased_over_many_samples():
    rankings, labels = collection(2)
    expected = truth(rankings, labels, 40)
    draws = {tag: [] for tag in expected}
    for seed in range(150):
        got = sampled_estimates(sampled_topics(rankings, labels, 40, seed), replicates=0)
        for tag in draws:
            draws[tag].append([got[tag][name].value for name in ("statAP", "P@10", "nDCG@10")])
    for tag, values in draws.items():
        values = np.array(values)
        mean, error = values.mean(axis=0), values.std(axis=0, ddof=1) / np.sqrt(len(values))
        # P@10 is exactly unbiased (every top-10 document is in the fully sampled first stratum, so its error is 0);
        # statAP and nDCG@10 are ratio estimators: within 3 standard errors (or 0.005) of the full-judgment value.
        assert np.all(np.abs(mean - expected[tag]) <= np.maximum(3 * error, 0.005)), (tag, mean, expected[tag], error)


def test_the_interval_covers_the_full_judgment_value_most_of_the_time():
    rankings, labels = collection(3)
    expected = truth(rankings, labels, 40)
    covered = total = 0
    for seed in range(30):
        got = sampled_estimates(sampled_topics(rankings, labels, 40, seed), replicates=200, seed=seed)
        for tag in expected:
            estimate = got[tag]["statAP"]
            covered += estimate.low - 0.002 <= expected[tag][0] <= estimate.high + 0.002
            total += 1
    assert covered / total >= 0.85


def test_sampled_documents_not_judged_yet_leave_the_judged_ones_to_stand_for_their_stratum():
    rankings, labels = collection(4)
    partial = sampled_estimates(sampled_topics(rankings, labels, 40, 0, judged_share=0.7), replicates=10)
    assert all(0 <= partial[tag]["statAP"].value <= 1.5 for tag in partial)
    assert all(partial[tag]["statAP"].low <= partial[tag]["statAP"].high for tag in partial)


def test_the_sampled_pool_records_each_strata_inclusion_probability():
    per_run = {"a": list(range(100)), "b": list(range(50, 150))}
    chosen = sampled_pool(per_run, depth=100, seed=3)
    by_stratum = {}
    for c in chosen:
        by_stratum.setdefault(c.stratum, set()).add(c.inclusion)
    # The union has 150 documents: best ranks 1-10, 20 of them, all; 11-30, 40, half; 31-100, 90, a fifth.
    assert by_stratum == {1: {1.0}, 2: {0.5}, 3: {0.2}}
    assert sum(c.stratum == 2 for c in chosen) == 20 and sum(c.stratum == 3 for c in chosen) == 18
    assert chosen == sampled_pool(per_run, depth=100, seed=3)


@pytest.mark.django_db
def test_a_sampled_pool_built_in_the_app_shows_its_estimates_with_intervals(client):
    from django.urls import reverse

    from judging import services
    from judging.models import PoolItem
    from tests.factories import make_collection, make_user

    collection = make_collection(topics=3, documents=60, runs=3, depth=40)
    services.pool_items_delete(items=list(PoolItem.objects.filter(topic__collection=collection)))
    report = services.pool_build(collection=collection, strategy="sampled", depth=40)
    assert report.added > 0
    items = PoolItem.objects.filter(topic__collection=collection)
    assert all(0 < p <= 1 for p in items.values_list("inclusion_probability", flat=True))
    assert set(items.filter(stratum=1).values_list("inclusion_probability", flat=True)) == {1.0}
    assert items.filter(inclusion_probability__lt=1).exists()
    assessor = make_user("assessor")
    for topic in collection.topics.all():
        services.assignment_create(assessor=assessor, topic=topic)
    for item in items.select_related("topic", "document"):
        services.judgment_record(
            assessor=assessor, topic=item.topic, document=item.document, grade=item.document_id % 2
        )
    client.force_login(make_user("researcher"))
    page = client.get(reverse("evaluation:leaderboard", args=[collection.id])).content.decode()
    assert "Estimated from the sampled pool" in page and "statAP (estimate)" in page
    assert 'data-estimate-run="run0"' in page
    csv_text = client.get(reverse("evaluation:estimates_download", args=[collection.id])).content.decode()
    assert csv_text.splitlines()[0] == "run,measure,estimate,low_95,high_95,topics"
    assert "run0,statAP (estimate)," in csv_text and len(csv_text.splitlines()) == 1 + 3 * 3


@pytest.mark.django_db
def test_a_collection_without_a_sample_shows_no_estimates(client):
    from django.urls import reverse

    from tests.factories import make_collection, make_user

    collection = make_collection()
    client.force_login(make_user("researcher"))
    assert (
        "Estimated from the sampled pool"
        not in client.get(reverse("evaluation:leaderboard", args=[collection.id])).content.decode()
    )
    assert client.get(reverse("evaluation:estimates_download", args=[collection.id])).status_code == 404
