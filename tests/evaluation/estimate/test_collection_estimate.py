"""A collection's estimate: a machine judge's labels on every topic corrected by people's on topics drawn at random;
valid only when every people topic was drawn; exact when people judged everything; on the leaderboard, the API,
and the admins' draw, refused to the roles that may not."""

from __future__ import annotations

import json
import random

import numpy as np
import pytest

from evaluation import ranking_cache
from evaluation.estimate import selectors, services
from evaluation.selectors import engine_options
from judging import services as judging
from judging.machines import services as machine_judges
from judging.models import PoolItem, Topic
from measures import PreparedQrels, evaluate, parse_measure
from tests.api_clients import role_clients
from tests.factories import make_collection, make_user

ppi_py = pytest.importorskip("ppi_py", reason="ppi-python, the reference, is in the test extra")
pytestmark = pytest.mark.django_db


def _campaign(topics=12):
    collection = make_collection(max_grade=1, topics=topics, documents=30, runs=3, depth=10, assessors_per_item=1)
    collection = judging.collection_settings_update(collection=collection, measures=["P@10", "AP"])
    judge = machine_judges.machine_judge_create(collection=collection, name="lexical", provider="lexical")
    rng = random.Random(3)
    pool = PoolItem.objects.filter(topic__collection=collection).values_list("topic_id", "document_id")
    truth = {key: int(rng.random() < 0.4) for key in pool}
    machine = {key: grade if rng.random() < 0.8 else 1 - grade for key, grade in truth.items()}
    judging.judgments_record_bulk(labels={(judge.account, t, d): g for (t, d), g in machine.items()})
    return collection, judge, truth, machine


def _judge_whole(person, truth, topic_ids):
    judging.judgments_record_bulk(labels={(person, t, d): g for (t, d), g in truth.items() if t in topic_ids})


def _ap_by_topic(collection, labels) -> dict[str, dict[int, float]]:
    """{run id: {topic id: AP}} straight from the engine, every topic of `labels`."""
    qrels: dict[int, dict[int, int]] = {}
    for (topic, document), grade in labels.items():
        qrels.setdefault(topic, {})[document] = grade
    runs = ranking_cache.collection_runs(topic_ids=sorted(qrels))
    result = evaluate(PreparedQrels.from_mapping(qrels), runs, [parse_measure("AP")], complete=True,
                      **engine_options(collection))  # fmt: skip
    return {tag: {int(t): float(v[0]) for t, v in zip(run.topics, run.values, strict=True)}
            for tag, run in result.runs.items()}  # fmt: skip


def test_people_topics_drawn_at_random_give_valid_intervals_equal_to_ppi_python():
    collection, judge, truth, machine = _campaign()
    drawn = services.topics_draw(collection=collection, count=5, rng=random.Random(1))
    sample = {t.id for t in drawn}
    _judge_whole(make_user("assessor"), truth, sample)
    estimate = selectors.collection_estimate(collection=collection, judge=judge)
    assert estimate.valid and not estimate.exact
    assert estimate.report["topics"] == {"all": 12, "people": 5}
    assert sorted(estimate.people_topics) == sorted(t.number for t in drawn)
    on_machine = _ap_by_topic(collection, machine)
    on_people = _ap_by_topic(collection, {k: g for k, g in truth.items() if k[0] in sample})
    first_run = min(on_machine, key=int)
    people_ids, others = sorted(sample), sorted(set(on_machine[first_run]) - sample)
    y = np.array([on_people[first_run][t] for t in people_ids])
    yhat = np.array([on_machine[first_run][t] for t in people_ids])
    rest = np.array([on_machine[first_run][t] for t in others])
    low, high = ppi_py.ppi_mean_ci(y, yhat, rest, alpha=0.05)
    entry = estimate.report["runs"]["run0"]["AP"]
    assert (entry["low"], entry["high"]) == pytest.approx((float(low[0]), float(high[0])), rel=1e-9)
    assert len(estimate.report["pairs"]) == 3 * 2  # three pairs of runs, two measures


def test_people_topics_not_drawn_at_random_make_the_interval_invalid_and_say_which():
    collection, judge, truth, _ = _campaign()
    chosen = sorted(Topic.objects.filter(collection=collection).values_list("id", flat=True))[:4]  # the first four
    _judge_whole(make_user("assessor"), truth, set(chosen))
    estimate = selectors.collection_estimate(collection=collection, judge=judge)
    numbers = dict(Topic.objects.filter(pk__in=chosen).values_list("id", "number"))
    assert not estimate.valid and sorted(estimate.not_random) == sorted(numbers.values())


def test_people_who_judged_every_topic_leave_the_exact_leaderboard():
    collection, judge, truth, _ = _campaign(topics=3)
    _judge_whole(
        make_user("assessor"), truth, set(Topic.objects.filter(collection=collection).values_list("id", flat=True))
    )
    estimate = selectors.collection_estimate(collection=collection, judge=judge)
    assert estimate.exact and not estimate.report


def test_a_draw_takes_only_topics_nobody_judged_or_drew_and_refuses_a_bad_count():
    collection, _, truth, _ = _campaign(topics=6)
    first = services.topics_draw(collection=collection, count=2, rng=random.Random(0))
    _judge_whole(make_user("assessor"), truth, {first[0].id})
    second = services.topics_draw(collection=collection, count=10, rng=random.Random(0))
    assert len(second) == 4 and not {t.id for t in first} & {t.id for t in second}
    assert services.topics_draw(collection=collection, count=1) == []
    with pytest.raises(Exception, match="between 1 and"):
        services.topics_draw(collection=collection, count=0)


def test_the_api_and_the_leaderboard_card_show_it_and_refuse_who_may_not(client):
    collection, judge, truth, _ = _campaign()
    clients = role_clients()
    url = f"/api/collections/{collection.id}/estimate/"
    assert clients["assessor"].get(url).status_code == 403
    assert clients["researcher"].post(f"{url}draws/", {"count": 3}, format="json").status_code == 403
    drawn = clients["admin"].post(f"{url}draws/", {"count": 4}, format="json")
    assert drawn.status_code == 201 and len(drawn.json()["drawn"]) == 4
    drawn_ids = set(
        Topic.objects.filter(collection=collection, number__in=drawn.json()["drawn"]).values_list("id", flat=True)
    )
    _judge_whole(make_user("assessor"), truth, drawn_ids)
    answer = clients["researcher"].get(url, {"level": 0.9})
    body = answer.json()
    assert answer.status_code == 200 and body["valid"] and body["level"] == 0.9 and body["judge"]["id"] == judge.pk
    assert body["topics"] == {"all": 12, "people": 4} and "PPI++" in body["method"]
    assert clients["researcher"].get(url, {"level": 2}).status_code == 400
    client.force_login(make_user("researcher"))
    card = client.get(f"/results/{collection.id}/how-sure/").content.decode()
    assert 'data-estimate="intervals"' in card and 'id="estimate-table"' in card and "data-estimate-invalid" not in card
    assert 'id="estimate-draw"' not in card  # a researcher reads; only admins draw
    board = client.get(f"/results/{collection.id}/").content.decode()
    assert 'id="estimate-slot"' in board


def test_the_comparison_the_machine_page_and_the_download_carry_the_estimate(client):
    collection, judge, truth, _ = _campaign()
    drawn = services.topics_draw(collection=collection, count=5, rng=random.Random(2))
    _judge_whole(make_user("assessor"), truth, {t.id for t in drawn})
    a, b = collection.runs.order_by("tag")[:2]
    client.force_login(make_user("researcher"))
    pair = client.get(
        f"/results/{collection.id}/how-sure/pair/", {"a": b.id, "b": a.id, "measure": "AP"}
    ).content.decode()
    report = selectors.collection_estimate(collection=collection, judge=judge).report
    (row,) = [p for p in report["pairs"] if p["measure"] == "AP" and (p["a"], p["b"]) == (a.tag, b.tag)]
    assert f"{b.tag} − {a.tag} on AP" in pair  # the page's own order: b − a, the interval mirrored
    assert f"[{-row['high']:.4f}, {-row['low']:.4f}]" in pair
    trust = client.get(f"/results/{collection.id}/how-sure/trust/", {"judge": judge.id}).content.decode()
    assert 'id="estimate-trust-table"' in trust and 'data-measure="AP"' in trust
    download = client.get(f"/results/{collection.id}/how-sure/estimate.json", {"level": "0.9"})
    provenance = json.loads(download["X-Provenance"])
    assert provenance["level"] == 0.9 and provenance["topics"] == {"all": 12, "people": 5} and provenance["valid"]
    assert "PPI++" in provenance["method"] and 0 <= provenance["lambda"]["run0"]["AP"] <= 1
    assert json.loads(download.content)["runs"]["run0"]["AP"]["lambda"] == provenance["lambda"]["run0"]["AP"]
    client.force_login(make_user("assessor"))
    assert client.get(f"/results/{collection.id}/how-sure/estimate.json").status_code == 403


def test_a_collection_whose_people_judged_no_topic_whole_says_what_to_do(client):
    collection, _, truth, _ = _campaign(topics=5)
    some = {key: grade for key, grade in truth.items() if key[1] % 2}  # half of every pool, no topic whole
    person = make_user("assessor")
    judging.judgments_record_bulk(labels={(person, t, d): g for (t, d), g in some.items()})
    client.force_login(make_user("admin"))
    card = client.get(f"/results/{collection.id}/how-sure/").content.decode()
    assert 'data-estimate="too-few"' in card and "People have judged 0 topics whole" in card
    assert 'id="estimate-draw"' in card
