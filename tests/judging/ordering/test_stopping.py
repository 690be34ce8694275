"""Where a campaign stands and when to stop: expected relevant documents left, leaderboard stability, the
suggestion, and the campaign page's panel."""

from __future__ import annotations

import numpy as np
import pytest
from django.urls import reverse

from judging import services
from judging.ordering.core.stopping import TopicInput, _Topic, campaign_standing
from measures import PreparedQrels, PreparedRun, evaluate
from tests.factories import make_collection, make_user


def test_the_drawn_average_precision_is_trec_evals():
    rng = np.random.default_rng(4)
    rankings = {tag: rng.permutation(60)[:25].tolist() for tag in ("a", "b", "c")}
    labels = {d: int(rng.random() < 0.3) for d in rng.permutation(60)[:40].tolist()}
    topic = _Topic(TopicInput("1", rankings, list(labels), labels), sorted(rankings))
    relevant = np.array([labels.get(d, 0) >= 1 for d in topic.documents])
    ours = topic.average_precision(relevant[None, :])[0]
    runs = [PreparedRun.from_rankings(tag, {1: rankings[tag]}) for tag in sorted(rankings)]
    theirs = evaluate(PreparedQrels.from_mapping({1: labels}), runs, ["AP"])
    assert ours == pytest.approx([theirs.value(tag, 1, "AP") for tag in sorted(rankings)], abs=1e-12)


def _topic(number, rankings, labels, pool=None):
    return TopicInput(number, rankings, pool or sorted({d for r in rankings.values() for d in r}), labels)


def test_a_fully_judged_pool_has_nothing_left_and_nothing_to_stop():
    rankings = {"a": [1, 2, 3], "b": [3, 2, 1]}
    standing = campaign_standing([_topic("1", rankings, {1: 1, 2: 0, 3: 0})])
    assert standing.unjudged == 0 and standing.relevant_expected_left == 0
    assert standing.stability == 1.0 and standing.top_stability == 1.0 and not standing.stable


def test_runs_far_apart_are_stable_before_the_pool_is_judged():
    good = list(range(1, 21))
    bad = list(range(101, 121))
    topics = []
    for t in range(5):
        labels = {d: int(d <= 8) for d in good[:10]} | {d: 0 for d in bad[:10]}
        topics.append(_topic(str(t), {"good": good, "bad": bad, "mid": good[:5] + bad[:15]}, labels))
    standing = campaign_standing(topics, seed=1)
    assert standing.unjudged == 5 * 20 and standing.stable and standing.stability >= 0.95


def test_runs_tied_on_what_is_judged_are_not_stable():
    # a and b each found one relevant document at rank 1; everything else they retrieved is unjudged.
    topics = [
        _topic(str(t), {"a": [1, *range(10, 30)], "b": [2, *range(30, 50)]}, {1: 1, 2: 1, 10: 0, 30: 0})
        for t in range(3)
    ]
    standing = campaign_standing(topics, seed=2)
    assert standing.stability is not None and standing.stability < 0.95 and not standing.stable
    assert standing.relevant_expected_left > 0


def test_before_both_kinds_are_judged_a_topic_uses_its_smoothed_share():
    standing = campaign_standing([_topic("1", {"a": [1, 2, 3, 4], "b": [4, 3]}, {1: 1})])
    # One relevant judged of one: (1 + 1) / (1 + 2) for each of the three unjudged documents.
    assert standing.relevant_expected_left == pytest.approx(3 * 2 / 3)
    assert standing.topics[0].relevant_found == 1 and standing.topics[0].judged == 1


@pytest.mark.django_db
def test_the_campaign_page_loads_the_standing_panel_for_admins_only(client):
    collection = make_collection(topics=2, documents=10, runs=3, depth=5)
    assessor = make_user("assessor")
    topic = collection.topics.first()
    services.assignment_create(assessor=assessor, topic=topic)
    for item in topic.pool_items.all()[:3]:
        services.judgment_record(assessor=assessor, topic=topic, document=item.document, grade=2)
    client.force_login(make_user("admin"))
    page = client.get(reverse("judging:campaign", args=[collection.id])).content.decode()
    assert reverse("judging:campaign_standing", args=[collection.id]) in page
    panel = client.get(reverse("judging:campaign_standing", args=[collection.id])).content.decode()
    assert "Where we stand" in panel and 'data-figure="stability"' in panel and "data-stop=" in panel
    assert 'data-standing-topic="1"' in panel
    client.force_login(assessor)
    assert client.get(reverse("judging:campaign_standing", args=[collection.id])).status_code == 403


def test_a_collection_with_no_runs_yet_stands_at_nothing_found_instead_of_failing():
    standing = campaign_standing([_topic("1", {}, {}), _topic("2", {}, {})])
    assert standing.relevant_found == 0 and standing.relevant_expected_left == 0


@pytest.mark.django_db
def test_the_standing_panel_of_a_new_collection_without_runs_answers(client):
    collection = make_collection(topics=2, documents=4, runs=0)
    client.force_login(make_user("admin"))
    assert client.get(reverse("judging:campaign_standing", args=[collection.id])).status_code == 200
