"""Gold items and repeated items mixed into an assessor's judging queue at the collection's rates: they come unmarked,
their answers are kept beside (never over) the assessor's own labels, never reach the consensus or the progress
figures, and give the reliability table its gold accuracy and self-agreement, and the labels exports their marks."""

from __future__ import annotations

import json

import pytest
from rest_framework.test import APIClient

from evaluation import selectors as evaluation_selectors
from evaluation.agreement.reliability import assessor_reliability
from evaluation.exports.qrels import qrels_export
from judging import services
from judging.models import Judgment, PoolItem, Topic
from judging.quality import selectors as checking
from judging.quality.core import Label, assessor_quality
from judging.quality.models import AssessorPause, CheckKind, QualityCheck
from judging.quality.services import checks
from tests.factories import make_collection, make_user
from tests.judging.test_judging_pages import config_of

pytestmark = pytest.mark.django_db

GOLD_DOCS = 10


@pytest.fixture
def campaign():
    """One topic of 40 pooled documents, one judgment per item; a reference's labels of d0..d9 are gold (so those
    items are filled: an assessor never sees them but as gold items); ann is assigned."""
    collection = make_collection(max_grade=3, topics=1, documents=40, runs=1, depth=40, assessors_per_item=1,
                                 gold_rate=0.2, repeat_rate=0.25)  # fmt: skip
    topic = Topic.objects.get(collection=collection)
    reference, ann = make_user("assessor"), make_user("assessor")
    documents = {item.document.docno: item.document for item in PoolItem.objects.filter(topic=topic)}
    gold = {(reference, topic.id, documents[f"d{i}"].id): i % 4 for i in range(GOLD_DOCS)}
    services.judgments_record_bulk(labels=gold)
    collection = services.collection_settings_update(collection=collection, gold_assessors=[reference.pk])
    services.assignment_create(assessor=ann, topic=topic)
    topic.refresh_from_db()
    return collection, topic, reference, ann, documents


def _grade_of(docno: str) -> int:
    return int(docno[1:]) % 4  # what the reference would say: an assessor who agrees with gold


def judge_everything(client, topic, grade_of=_grade_of, limit=200) -> list[dict]:
    """Judges the page's queue as the judging page does (each save carries its entry's key), reloading after each
    save, until nothing is left; returns each save's answer with the entry it answered."""
    answers = []
    for _ in range(limit):
        config = config_of(client.get(f"/judging/judge/{topic.id}/"))
        if config["start"] >= len(config["queue"]):
            return answers
        entry = config["queue"][config["start"]]
        response = client.post(
            f"/judging/judge/{topic.id}/{entry['id']}/",
            {"grade": grade_of(entry["docno"]), "seconds_total": "5", "entry": entry["key"]},
            HTTP_ACCEPT="application/json",
        )
        assert response.status_code == 200, response.content
        answers.append({"entry": entry, **response.json()})
    raise AssertionError("the queue never emptied")


def test_gold_items_come_unmarked_and_their_answers_never_count(campaign, client):
    collection, topic, _reference, ann, documents = campaign
    client.force_login(ann)
    first = config_of(client.get(f"/judging/judge/{topic.id}/"))
    assert first["checking"] is True and first["progress"] == {"judged": 0, "total": 40 - GOLD_DOCS}
    consensus_before = evaluation_selectors.consensus_qrels(collection=collection)
    answers = judge_everything(client, topic)
    gold_answers = QualityCheck.objects.filter(assessor=ann, kind=CheckKind.GOLD, answered_at__isnull=False)
    gold_ids = {documents[f"d{i}"].id for i in range(GOLD_DOCS)}
    assert gold_answers.count() >= 5  # about a fifth of 30 + checks: gold is mixed in from the first judgments
    assert set(gold_answers.values_list("document_id", flat=True)) <= gold_ids
    # Their own labels are the 30 items that were theirs; no label of a gold item was written as a judgment.
    assert Judgment.objects.filter(assessor=ann).count() == 30
    assert not Judgment.objects.filter(assessor=ann, document_id__in=gold_ids).exists()
    consensus_after = evaluation_selectors.consensus_qrels(collection=collection)
    assert {d: consensus_after[topic.id][d] for d in gold_ids} == {d: consensus_before[topic.id][d] for d in gold_ids}
    # Progress counts checks as items: every save moves it by one, a check's as an own item's (it once stood still
    # on a check while "Document X of Y" moved on); the total grows only as checks are scheduled, never shrinks.
    for answer in answers:
        assert set(answer) >= {"saved", "progress", "upcoming"}
    assert [answer["progress"]["judged"] for answer in answers] == list(range(1, len(answers) + 1))
    totals = [answer["progress"]["total"] for answer in answers]
    assert totals == sorted(totals) and totals[-1] == len(answers) > 30


@pytest.mark.parametrize(("k", "rate", "gold_docs"), [(2, 0.2, 10), (1, 0.5, 20), (3, 0.5, 20)])
def test_gold_items_arrive_at_the_configured_rate_whatever_k(client, k, rate, gold_docs):
    """With k = 2 a reference's label filled no item: every gold item stayed an ordinary one and no gold check was
    ever mixed in. Gold items are now kept for checks, so they arrive at the rate asked."""
    collection = make_collection(max_grade=3, topics=1, documents=40, runs=1, depth=40, assessors_per_item=k,
                                 gold_rate=rate)  # fmt: skip
    topic = Topic.objects.get(collection=collection)
    reference, ann = make_user("assessor"), make_user("assessor")
    documents = {item.document.docno: item.document for item in PoolItem.objects.filter(topic=topic)}
    services.judgments_record_bulk(labels={(reference, topic.id, documents[f"d{i}"].id): 1 for i in range(gold_docs)})
    services.collection_settings_update(collection=collection, gold_assessors=[reference.pk])
    services.assignment_create(assessor=ann, topic=topic)
    client.force_login(ann)
    answers = judge_everything(client, topic)
    golds = QualityCheck.objects.filter(assessor=ann, kind=CheckKind.GOLD, answered_at__isnull=False).count()
    assert Judgment.objects.filter(assessor=ann).count() == 40 - gold_docs  # gold is never an own item
    assert len(answers) == 40 - gold_docs + golds
    assert rate - 0.1 <= golds / len(answers) <= rate + 0.05  # topped up a few judgments ahead


def test_every_entry_has_the_same_fields_and_an_opaque_key(campaign, client):
    _collection, topic, _, ann, _ = campaign
    client.force_login(ann)
    judge_everything(client, topic, limit=200)
    entries = config_of(client.get(f"/judging/judge/{topic.id}/"))["queue"]
    kinds = {(e["id"], e["key"]) for e in entries}
    checks_keys = {
        checking.entry_key(ann.id, topic.id, c.document_id, c.kind) for c in QualityCheck.objects.filter(assessor=ann)
    }
    assert checks_keys <= {key for _, key in kinds}  # the answered checks are in the list, as judged entries
    assert len({frozenset(e) for e in entries}) == 1  # same fields, checks or not
    assert all(len(e["key"]) == 16 and int(e["key"], 16) >= 0 for e in entries)


def test_a_repeat_keeps_the_first_label_and_measures_self_agreement(campaign, client):
    collection, topic, _, ann, _documents = campaign
    client.force_login(ann)
    flips = iter(range(1000))

    def inconsistent(docno):  # right the first time; on a repeat, every other answer one grade off
        if Judgment.objects.filter(assessor=ann, document__docno=docno).exists():
            return (_grade_of(docno) + next(flips) % 2) % 4
        return _grade_of(docno)

    judge_everything(client, topic, grade_of=inconsistent)
    repeats = list(QualityCheck.objects.filter(assessor=ann, kind=CheckKind.REPEAT, answered_at__isnull=False))
    assert len(repeats) >= 5  # a quarter of 30 judged documents, drawn as judging goes
    for repeat in repeats:  # the first label stands; the repeat is kept beside it
        first = Judgment.objects.get(assessor=ann, document=repeat.document)
        assert first.grade == _grade_of(repeat.document.docno)
        assert first.created_at < repeat.answered_at
    row = next(r for r in assessor_reliability(collection=collection, reveal=True) if r.assessor == ann.username)
    pairs = [(Judgment.objects.get(assessor=ann, document=r.document).grade, r.grade) for r in repeats]
    expected = assessor_quality(
        [Label("t", str(i), a, "ann", f"{i:04}a") for i, (a, _) in enumerate(pairs)]
        + [Label("t", str(i), b, "ann", f"{i:04}b") for i, (_, b) in enumerate(pairs)]
    ).self_agreement
    assert row.self_agreement == pytest.approx(expected)
    assert row.gold_accuracy == 1.0 and row.gold_items >= 5  # gold answers all agreed with the reference


def test_a_repeat_is_shown_some_judgments_after_its_first_label_never_next_to_it(campaign, client):
    _, topic, _, ann, _ = campaign
    client.force_login(ann)
    answers = judge_everything(client, topic)
    shown = [a["entry"]["id"] for a in answers]
    for repeat in QualityCheck.objects.filter(assessor=ann, kind=CheckKind.REPEAT):
        first, again = shown.index(repeat.document_id), len(shown) - 1 - shown[::-1].index(repeat.document_id)
        assert again - first > checks.REPEAT_GAP


def test_no_check_is_announced_before_it_is_due_and_a_waiting_repeats_first_grade_cannot_be_read(campaign, client):
    """A repeat was listed in `upcoming` 2-6 judgments ahead, with the id of an entry already judged whose grade the
    judged list showed: the assessor could read their first answer back."""
    _, topic, _, ann, _ = campaign
    client.force_login(ann)
    api = APIClient()
    api.force_authenticate(ann)
    seen_waiting = 0
    for _ in range(200):
        config = config_of(client.get(f"/judging/judge/{topic.id}/"))
        if config["start"] >= len(config["queue"]):
            break
        waiting = list(QualityCheck.objects.filter(assessor=ann, answered_at__isnull=True))
        judged_own = Judgment.objects.filter(assessor=ann).count()
        keys = {e["key"] for e in config["queue"]}
        for check in waiting:
            key = checking.entry_key(ann.id, topic.id, check.document_id, check.kind)
            due = check.due_after <= judged_own or judged_own == 30  # or nothing of their own is left
            assert (key in keys) == due  # in the queue once due, never before
            if check.kind == CheckKind.REPEAT:
                seen_waiting += 1
                own = checking.entry_key(ann.id, topic.id, check.document_id)
                assert own not in keys  # the first label's entry (and its grade) is out of sight
                assert check.document_id not in {step["id"] for step in config["undo"]}
                listed = api.get(f"/api/judgments/?topic={topic.id}").json()["results"]
                assert check.document_id not in {row["document"] for row in listed}
                page = client.get(f"/judging/judge/{topic.id}/?doc={check.document_id}")
                assert config_of(page)["queue"][config_of(page)["start"]]["key"] != own
        entry = config["queue"][config["start"]]
        client.post(f"/judging/judge/{topic.id}/{entry['id']}/", {"grade": 1, "entry": entry["key"]},
                    HTTP_ACCEPT="application/json")  # fmt: skip
    assert seen_waiting > 0  # repeats were waiting at some point, or the test proves nothing


def test_the_queue_api_serves_the_pages_entries_and_answers_a_check_as_any_entry(campaign):
    _, topic, _, ann, _ = campaign
    api = APIClient()
    api.force_authenticate(ann)
    bodies = []
    for _ in range(200):
        queue = api.get(f"/api/topics/{topic.id}/queue/?limit=1").json()
        if not queue["documents"]:
            break
        entry = queue["documents"][0]
        page = checking.judging_page_queue(assessor_id=ann.id, topic=topic)
        assert entry["key"] == checking.upcoming_of(page)[0]["key"]  # what the page would show next
        answer = api.post("/api/judgments/", {"topic": topic.id, "document": entry["id"], "grade": 1,
                                              "entry": entry["key"]}, format="json")  # fmt: skip
        assert answer.status_code == 200, answer.content
        bodies.append(frozenset(answer.json()))
    answered = QualityCheck.objects.filter(assessor=ann, answered_at__isnull=False)
    assert answered.filter(kind=CheckKind.GOLD).exists() and answered.filter(kind=CheckKind.REPEAT).exists()
    assert len(set(bodies)) == 1 and "id" not in next(iter(bodies))  # every entry answered with the same fields
    assert Judgment.objects.filter(assessor=ann).count() == 30  # the checks' answers wrote no judgment


def test_the_labels_exports_mark_gold_and_repeat_answers(campaign, client):
    collection, topic, reference, ann, _ = campaign
    client.force_login(ann)
    judge_everything(client, topic)
    _, _, lines = qrels_export(collection=collection, fmt="jsonl", source="all")
    rows = [json.loads(line) for line in lines]
    mine = [r for r in rows if r["assessor"] == ann.username]
    repeats = QualityCheck.objects.filter(assessor=ann, kind=CheckKind.REPEAT, answered_at__isnull=False).count()
    golds = QualityCheck.objects.filter(assessor=ann, kind=CheckKind.GOLD, answered_at__isnull=False).count()
    assert sum(r.get("check") == "repeat" for r in mine) == repeats
    assert sum(r.get("check") == "gold" for r in mine) == golds
    assert not any("check" in r for r in rows if r["assessor"] == reference.username)  # the reference is gold
    trec = list(qrels_export(collection=collection, fmt="trec", source="all")[2])
    assert len(trec) == len(rows) - repeats  # one label per line and assessor for trec_eval
    header, *lines = "".join(qrels_export(collection=collection, fmt="csv", source="assessor",
                                          assessor=ann.username)[2]).splitlines()  # fmt: skip
    assert "check" in header.split(",") and sum(line.split(",")[7] == "repeat" for line in lines) == repeats


def test_an_undone_check_answer_waits_again(campaign, client):
    _, topic, _, ann, _ = campaign
    client.force_login(ann)
    judge_everything(client, topic)
    check = QualityCheck.objects.filter(assessor=ann, answered_at__isnull=False).first()
    key = checking.entry_key(ann.id, topic.id, check.document_id, check.kind)
    response = client.post(f"/judging/judge/{topic.id}/{check.document_id}/", {"action": "delete", "entry": key},
                           HTTP_ACCEPT="application/json")  # fmt: skip
    assert response.status_code == 200
    check.refresh_from_db()
    assert check.answered_at is None and check.grade is None
    config = config_of(client.get(f"/judging/judge/{topic.id}/"))
    assert config["queue"][config["start"]]["key"] == key  # the one entry left to judge


def test_a_paused_assessor_cannot_answer_a_check_either(campaign, client):
    collection, topic, _, ann, _ = campaign
    client.force_login(ann)
    judge_everything(client, topic, limit=200)
    check = QualityCheck.objects.filter(assessor=ann).first()
    services.collection_settings_update(collection=collection, pause_below=0.5)
    AssessorPause.objects.create(collection=collection, assessor=ann, reason="test")
    key = checking.entry_key(ann.id, topic.id, check.document_id, check.kind)
    response = client.post(f"/judging/judge/{topic.id}/{check.document_id}/", {"grade": 0, "entry": key},
                           HTTP_ACCEPT="application/json")  # fmt: skip
    assert response.status_code == 403 and "paused" in response.json()["error"]["message"]


def test_gold_and_advisory_assessors_get_no_checks_and_a_zero_rate_none(campaign):
    collection, topic, reference, ann, _ = campaign
    services.assignment_create(assessor=reference, topic=topic)
    assert checks.checks_schedule(assessor=reference, topic=topic) == []
    services.collection_settings_update(collection=collection, gold_rate=0.0, repeat_rate=0.0)
    topic.refresh_from_db()
    for document in [item.document for item in PoolItem.objects.filter(topic=topic)][GOLD_DOCS : GOLD_DOCS + 20]:
        services.judgment_record(assessor=ann, topic=topic, document=document, grade=1)
    assert checks.checks_schedule(assessor=ann, topic=topic) == []
    assert checking.judging_page_queue(assessor_id=ann.id, topic=topic).total == 30


def test_a_key_of_the_assessors_own_item_edits_their_label_not_a_check(campaign, client):
    _, topic, _, ann, _documents = campaign
    client.force_login(ann)
    judge_everything(client, topic)
    repeat = QualityCheck.objects.filter(assessor=ann, kind=CheckKind.REPEAT).first()
    own_key = checking.entry_key(ann.id, topic.id, repeat.document_id)
    client.post(f"/judging/judge/{topic.id}/{repeat.document_id}/", {"grade": 3, "entry": own_key},
                HTTP_ACCEPT="application/json")  # fmt: skip
    assert Judgment.objects.get(assessor=ann, document_id=repeat.document_id).grade == 3
    assert QualityCheck.objects.get(pk=repeat.pk).grade == repeat.grade  # the repeat's answer untouched
