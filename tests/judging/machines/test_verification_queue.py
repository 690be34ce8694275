"""The verification queue: people verify a machine judge's labels, its likeliest errors first by a stated score
(worked by hand here), blind (the machine's grade only after the person's own is saved) or post-editing (shown
beside the document); and on a simulated judge whose errors concentrate at the threshold the ranked queue finds
more of them per verification than a random order."""

from __future__ import annotations

import json
import random

import pytest

from judging import selectors, services
from judging.machines import services as machine_judges
from judging.machines.core.verification import impact_weights, verification_scores
from judging.models import PoolItem, Topic
from tests.factories import make_collection, make_user


def test_the_score_worked_by_hand():
    pool = [1, 2, 3, 4, 5]
    machine = {1: 0, 2: 1, 3: 2, 4: 3}  # 5 has no machine label
    others = [{1: 3, 2: 1, 3: 2}, {1: 0, 4: 0}]
    impact = {1: 0.5, 2: 0.0, 3: 1.0, 4: 0.25, 5: 0.0}
    scores = verification_scores(pool, machine, others, impact, threshold=2)
    # 1: grade 0, one of two others on the other side of 2 (2 * 0.5), not at the boundary, impact 0.5 -> 1.5
    # 2: grade 1 (boundary), the one other agrees, impact 0 -> 1.0
    # 3: grade 2 (boundary), the one other agrees, impact 1 -> 2.0
    # 4: grade 3, the one other disagrees (2 * 1), impact 0.25 -> 2.25
    # 5: no label -> 3
    assert scores == {1: 1.5, 2: 1.0, 3: 2.0, 4: 2.25, 5: 3.0}


def test_impact_weights_follow_the_ap_prior_and_peak_at_one():
    weights = impact_weights({"a": [1, 2, 3], "b": [2, 1]}, [1, 2, 3])
    # rank r of N: (1 + H_N - H_r) / 2N; a: N=3 (H = 1, 1.5, 11/6), b: N=2 (H = 1, 1.5)
    one = (1 + 11 / 6 - 1) / 6 + (1 + 1.5 - 1.5) / 4
    two = (1 + 11 / 6 - 1.5) / 6 + (1 + 1.5 - 1) / 4
    three = (1 + 11 / 6 - 11 / 6) / 6
    top = max(one, two, three)
    assert weights == pytest.approx({1: one / top, 2: two / top, 3: three / top})


@pytest.fixture
def verifying(db):
    collection = make_collection(max_grade=3, threshold=2, topics=1, documents=10, runs=2, depth=8)
    topic = collection.topics.get()
    judge = machine_judges.machine_judge_create(collection=collection, name="m", base_url="http://x/v1", model="m")
    items = list(PoolItem.objects.filter(topic=topic).select_related("document").order_by("id"))
    for item, grade in zip(items, (0, 3, 1, 2, 0, 3), strict=False):  # the rest: no machine label
        services.judgment_record(assessor=judge.account, topic=topic, document=item.document, grade=grade,
                                 require_assignment=False)  # fmt: skip
    collection = services.collection_settings_update(collection=collection, verification_judge=judge.id)
    person = make_user("assessor")
    services.assignment_create(assessor=person, topic=topic)
    return collection, Topic.objects.get(pk=topic.pk), person, judge, items


def test_the_queue_puts_the_machines_likeliest_errors_first(verifying):
    _, topic, person, _, items = verifying
    queue = [entry["id"] for entry in selectors.judging_queue(assessor_id=person.id, topic=topic)]
    unlabelled = {item.document_id for item in items[6:]}
    assert set(queue[: len(unlabelled)]) == unlabelled  # no machine label at all: first
    boundary = {items[2].document_id, items[3].document_id}  # grades 1 and 2, either side of threshold 2
    assert set(queue[len(unlabelled) : len(unlabelled) + 2]) == boundary


def test_post_editing_shows_the_machines_grade_beside_the_document(verifying, client):
    collection, topic, person, judge, items = verifying
    services.collection_settings_update(collection=collection, verification_mode="post_edit")
    client.force_login(person)
    page = client.get(f"/judging/judge/{topic.id}/?doc={items[1].document_id}").content.decode()
    assert 'id="machine-label"' in page and 'data-grade="3"' in page and judge.name in page


def test_blind_verification_shows_the_machines_grade_only_once_saved(verifying, client):
    _, topic, person, judge, items = verifying
    client.force_login(person)
    page = client.get(f"/judging/judge/{topic.id}/?doc={items[1].document_id}").content.decode()
    assert 'id="machine-label"' not in page and 'id="machine-note"' in page
    answer = client.post(
        f"/judging/judge/{topic.id}/{items[1].document_id}/",
        {"grade": 2, "seconds_total": "3"},
        HTTP_ACCEPT="application/json",
    ).json()
    assert answer["saved"] and answer["machine"]["grade"] == 3 and answer["machine"]["judge"] == judge.name


def test_blind_verification_shows_nothing_of_the_machine_for_a_save_without_a_grade(verifying, client):
    _, topic, person, _, items = verifying
    client.force_login(person)
    answer = client.post(
        f"/judging/judge/{topic.id}/{items[1].document_id}/",
        {"grade": "", "cannot_judge_reason": "Document is unreadable", "seconds_total": "3"},
        HTTP_ACCEPT="application/json",
    ).json()
    assert answer["saved"] and answer["machine"] is None  # the key is there for every save, its grade is not
    assert "reply" not in json.dumps(answer) and "umbrela" not in json.dumps(answer).lower()


def test_ranked_verification_finds_more_machine_errors_per_judgment_than_random():
    """A simulated judge wrong mostly at the threshold (grades 1 and 2 of 0..3): the ranked queue's first fifth
    holds at least twice the errors a random fifth holds, averaged over seeds."""
    ratios = []
    for seed in range(20):
        rng = random.Random(seed)
        truth = {d: rng.choice([0, 0, 0, 1, 1, 2, 3]) for d in range(200)}
        machine = {}
        for d, grade in truth.items():
            near = grade in (1, 2)
            wrong = rng.random() < (0.5 if near else 0.05)
            machine[d] = (3 - grade if near else min(3, grade + 1)) if wrong else grade
        impact = {d: rng.random() * 0.2 for d in truth}
        scores = verification_scores(list(truth), machine, [], impact, threshold=2)
        budget = 40
        ranked = sorted(truth, key=lambda d: -scores[d])[:budget]
        shuffled = rng.sample(list(truth), budget)
        found_ranked = sum(machine[d] != truth[d] for d in ranked)
        found_random = sum(machine[d] != truth[d] for d in shuffled)
        ratios.append(found_ranked / max(found_random, 1))
    assert sum(ratios) / len(ratios) >= 2.0
