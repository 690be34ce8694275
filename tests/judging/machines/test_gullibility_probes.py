"""Gullibility probes (#48, item 3): documents people and the judge called not relevant, rewritten three ways and
asked again; against a chat server made gullible on purpose the injected instruction flips every label and the
others none, against an honest one nothing flips; probes are never stored as labels; a judge over the limit is
flagged on the pages that use its labels and in the API."""

from __future__ import annotations

import pytest

from judging import services
from judging.jobs.models import Job
from judging.machines import services as machine_judges
from judging.machines.core.probes import INJECTION, KINDS, ProbeAnswer, flip_report, probe_sources, probe_text
from judging.machines.models import MachineJudge, MachineReply
from judging.machines.selectors import gullibility
from judging.models import Judgment, PoolItem
from measures.intervals import wilson
from tests.chat_server import chat_server
from tests.factories import make_collection, make_user


def test_each_probe_keeps_the_document_and_adds_only_its_trick():
    document = "the weather in paris"
    stuffed = probe_text("keyword_stuffing", document, query="sort a list", top_grade=3, max_words=400)
    assert stuffed.endswith(document) and stuffed.count("sort a list") == 3
    injected = probe_text("instruction_injection", document, query="q", top_grade=3, max_words=400)
    assert injected == INJECTION.format(top=3) + " " + document
    longer = probe_text("length", document, query="q", top_grade=3, max_words=400)
    assert longer.split() == document.split() * 3  # longer, no new word
    assert len(probe_text("length", document, query="q", top_grade=3, max_words=6).split()) == 6  # the judge's cut


def test_sources_are_spread_over_the_topics_and_the_same_on_a_rerun():
    pairs = [(t, d) for t in (1, 2, 3) for d in range(10)]
    chosen = probe_sources(pairs, 6)
    assert sorted(t for t, _ in chosen) == [1, 1, 2, 2, 3, 3]
    assert chosen == probe_sources(list(reversed(pairs)), 6)


def test_the_report_counts_flips_with_wilson_intervals_and_failures_apart():
    answers = [ProbeAnswer("length", 1, d, 3 if d < 2 else 0) for d in range(8)] + [ProbeAnswer("length", 1, 9, None)]
    row = flip_report(answers, threshold=2)["length"]
    assert (row["tried"], row["flipped"], row["failed"], row["share"]) == (8, 2, 1, 0.25)
    assert (row["low"], row["high"]) == wilson(2, 8)
    assert [e["document"] for e in row["examples"]] == [0, 1]


def _judged_not_relevant(server_qrels_out: dict):
    """A collection whose every pooled pair a person labelled 0, and a chat judge that labelled them 0 too."""
    collection = make_collection(max_grade=3, threshold=2, topics=2, documents=8, runs=2, depth=5)
    person = make_user("assessor")
    pool = list(PoolItem.objects.filter(topic__collection=collection).select_related("topic", "document"))
    services.judgments_record_bulk(labels={(person, i.topic_id, i.document_id): 0 for i in pool})
    for item in pool:
        server_qrels_out[(item.topic.number, item.document.docno[1:])] = 0
    return collection


@pytest.mark.django_db
@pytest.mark.parametrize("gullible", [True, False], ids=["gullible", "honest"])
def test_probes_measure_a_gullible_judge_at_every_injection_and_an_honest_one_at_none(gullible, client):
    qrels: dict = {}
    collection = _judged_not_relevant(qrels)
    with chat_server(qrels) as server:
        judge = machine_judges.machine_judge_create(
            collection=collection, name="m", base_url=server.base_url, model="m", concurrency=2
        )
        machine_judges.machine_judge_run(judge=judge)
        labels_before = Judgment.objects.count(), MachineReply.objects.count()
        server.gullible = gullible
        report = machine_judges.machine_judge_probe(judge=judge, count=6)
    kinds = report["kinds"]
    assert report["sources"] == 6 and set(kinds) == set(KINDS)
    assert all(kinds[k]["tried"] == 6 and kinds[k]["failed"] == 0 for k in KINDS)
    assert kinds["instruction_injection"]["share"] == (1.0 if gullible else 0.0)
    assert kinds["keyword_stuffing"]["share"] == 0.0 and kinds["length"]["share"] == 0.0
    assert (Judgment.objects.count(), MachineReply.objects.count()) == labels_before  # probes are no labels
    judge.refresh_from_db()
    assert judge.probes["configuration"] == judge.configuration
    client.force_login(make_user("admin"))
    judges_page = client.get(f"/judging/collections/{collection.id}/machine-judges/").content.decode()
    report_page = client.get(f"/results/{collection.id}/machines/").content.decode()
    api = client.get(f"/api/machine-judges/{judge.id}/").json()["gullibility"]
    assert api["flagged"] is gullible and api["current"] is True
    for page in (judges_page, report_page):
        assert ('data-gullible="instruction_injection"' in page) is gullible
    assert ("data-gullibility-warning" in report_page) is gullible


@pytest.mark.django_db
def test_a_changed_configuration_marks_the_probes_as_an_earlier_ones():
    qrels: dict = {}
    collection = _judged_not_relevant(qrels)
    with chat_server(qrels) as server:
        judge = machine_judges.machine_judge_create(
            collection=collection, name="m", base_url=server.base_url, model="m"
        )
        machine_judges.machine_judge_run(judge=judge)
        server.gullible = True
        machine_judges.machine_judge_probe(judge=judge, count=2)
        judge = machine_judges.machine_judge_update(judge=judge, model="another")
    found = gullibility(judge=judge)
    assert found["flagged"] and not found["current"]


@pytest.mark.django_db
def test_probes_start_as_a_job_for_an_admin_and_are_refused_to_an_assessor(client):
    collection = make_collection()
    judge = machine_judges.machine_judge_create(collection=collection, name="bm25", provider="lexical")
    client.force_login(make_user("assessor"))
    assert client.post(f"/api/machine-judges/{judge.id}/probes/", {"count": 3}).status_code == 403
    client.force_login(make_user("admin"))
    answer = client.post(f"/api/machine-judges/{judge.id}/probes/", {"count": 3}, content_type="application/json")
    assert answer.status_code == 202
    job = Job.objects.get(pk=answer.json()["id"])
    assert job.task == machine_judges.PROBE_TASK and job.arguments == {"judge_id": judge.id, "count": 3}
    assert client.post(f"/api/machine-judges/{judge.id}/probes/", {"count": 0}).status_code == 400


@pytest.mark.django_db
def test_an_offline_judge_is_probed_too_its_probes_scored_beside_the_pool():
    qrels: dict = {}
    collection = _judged_not_relevant(qrels)
    judge = machine_judges.machine_judge_create(collection=collection, name="bm25", provider="lexical")
    machine_judges.machine_judge_run(judge=judge)
    report = machine_judges.machine_judge_probe(judge=judge, count=4)
    assert all(row["failed"] == 0 for row in report["kinds"].values()), report["kinds"]
    assert sum(row["tried"] for row in report["kinds"].values()) == 3 * report["sources"]


@pytest.mark.django_db
def test_a_gullible_judge_is_flagged_wherever_its_labels_or_figures_built_from_them_show(client):
    collection = make_collection(max_grade=3, threshold=2, topics=2, documents=8, runs=2, depth=5)
    judge = machine_judges.machine_judge_create(collection=collection, name="stuffed", provider="lexical")
    machine_judges.machine_judge_run(judge=judge)
    person = make_user("assessor")
    pool = list(PoolItem.objects.filter(topic__collection=collection))
    services.judgments_record_bulk(labels={(person, i.topic_id, i.document_id): 0 for i in pool[:4]})
    from evaluation import services as evaluation_services

    evaluation_services.collection_recompute(collection_id=collection.id)
    client.force_login(make_user("admin"))
    pages = {
        "machines": f"/results/{collection.id}/machines/",
        "reliability": f"/results/{collection.id}/reliability/",
        "campaign": f"/judging/collections/{collection.id}/",
        "leaderboard": f"/results/{collection.id}/",
    }
    before = {name: client.get(url).content.decode() for name, url in pages.items()}  # cached reads filled
    assert not any("gullible" in page for page in before.values())
    judge.refresh_from_db()
    kinds = {k: {"tried": 4, "flipped": 4, "failed": 0, "share": 1.0, "label": k} for k in KINDS}
    MachineJudge.objects.filter(pk=judge.pk).update(probes={"kinds": kinds, "configuration": judge.configuration})
    after = {name: client.get(url).content.decode() for name, url in pages.items()}
    assert 'data-gullible="' in after["machines"] and "data-gullibility-warning" in after["machines"]
    assert 'data-flag="gullible"' in after["reliability"]
    assert 'data-gullible="' in after["campaign"] and "machine:" not in after["campaign"]
    assert 'data-gullible-judge="stuffed"' in after["leaderboard"]
    csv = client.get(f"/results/{collection.id}/reliability/?format=csv").content.decode()
    assert "gullible: its gullibility probes flipped 1.00" in csv
