"""Whose labels count is data (#47): each labelling account is a source with a kind and a role, changed only by the
one service with an audit trail, on a page and through the API; the JSON lists it replaces migrate keeping every
collection's meaning; an import names its source and role; the standing API counts people's pooled labels."""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from evaluation.models import TopicState
from judging import services
from judging.imports.services import qrels_import
from judging.machines import services as machine_judges
from judging.models import PoolItem, Topic
from judging.sources import selectors as sources
from judging.sources.models import LabelSource, SourceKind, SourceRole
from judging.sources.services import label_source_set
from tests.api_clients import role_clients
from tests.factories import make_collection, make_user

pytestmark = pytest.mark.django_db


def test_a_role_change_is_kept_with_who_and_why_and_recomputes_the_collection():
    collection = make_collection(topics=2)
    person, admin = make_user("assessor"), make_user("admin")
    TopicState.objects.filter(topic__collection=collection).update(dirty=False)
    label_source_set(collection=collection, account=person, role=SourceRole.GOLD, changed_by=admin, reason="NIST")
    (row,) = [r for r in sources.collection_sources(collection=collection) if r.account_id == person.pk]
    assert (row.kind, row.role, row.changed_by) == (SourceKind.PERSON, SourceRole.GOLD, admin.username)
    assert [(c.previous_role, c.role, c.reason) for c in row.history] == [("", "gold", "NIST")]
    assert sources.gold_accounts(collection=collection) == {person.pk}
    assert TopicState.objects.filter(topic__collection=collection, dirty=True).count() == 2  # the consensus changed


def test_setting_the_same_source_twice_records_one_change():
    collection, person = make_collection(topics=1), make_user("assessor")
    for _ in range(2):
        label_source_set(collection=collection, account=person, kind=SourceKind.IMPORTED)
    assert LabelSource.objects.get(collection=collection).changes.count() == 1


def test_a_bad_role_or_account_is_refused_naming_the_field():
    from django.core.exceptions import ValidationError

    collection = make_collection(topics=1)
    with pytest.raises(ValidationError) as refused:
        label_source_set(collection=collection, account=make_user("assessor"), role="decisive")
    assert list(refused.value.message_dict) == ["role"]
    with pytest.raises(ValidationError) as refused:
        label_source_set(collection=collection, account=10**9, role="advisory")
    assert list(refused.value.message_dict) == ["account"]


def test_a_qrels_import_names_its_source_and_role(tmp_path):
    collection = make_collection(topics=1, documents=4)
    topic = Topic.objects.get(collection=collection)
    docnos = list(collection.documents.values_list("docno", flat=True))
    path = tmp_path / "nist.qrels"
    path.write_text("".join(f"{topic.number} 0 {d} 1\n" for d in docnos))
    qrels_import(collection=collection, path=path, assessor="nist-2024", role=SourceRole.GOLD)
    (row,) = sources.collection_sources(collection=collection)
    assert (row.name, row.kind, row.role, row.labels) == ("qrels:nist-2024", "imported", "gold", len(docnos))


def test_the_import_page_and_api_take_a_source_and_refuse_a_bad_role(client):
    collection = make_collection(topics=1)
    clients = role_clients()
    answer = clients["admin"].post(
        f"/api/collections/{collection.id}/imports/",
        {"kind": "qrels", "file": SimpleUploadedFile("q.qrels", b"x"), "source": "nist", "role": "decisive"},
    )
    assert answer.status_code == 400 and "role" in answer.json()["error"]["fields"]
    client.force_login(make_user("admin"))
    page = client.get(f"/judging/collections/{collection.id}/import/").content.decode()
    assert 'name="source"' in page and 'name="role"' in page


def test_the_sources_page_lists_each_labeller_and_changes_a_role_for_admins_only(client):
    collection = make_collection(topics=1, documents=4, runs=1, depth=4)
    topic = Topic.objects.get(collection=collection)
    person = make_user("assessor")
    services.judgments_record_bulk(
        labels={(person, topic.id, d): 1 for d in collection.documents.values_list("id", flat=True)}
    )
    judge = machine_judges.machine_judge_create(collection=collection, name="bm25", provider="lexical")
    client.force_login(make_user("admin"))
    page = client.get(f"/judging/collections/{collection.id}/sources/").content.decode()
    assert f'data-source="{person.username}" data-kind="person" data-role="counted"' in page
    assert f'data-source="{judge.name}" data-kind="machine" data-role="advisory"' in page
    client.post(f"/judging/collections/{collection.id}/sources/{person.pk}/", {"kind": "person", "role": "advisory"})
    assert sources.advisory_accounts(collection=collection) == {person.pk, judge.account_id}
    client.force_login(person)
    assert client.get(f"/judging/collections/{collection.id}/sources/").status_code in (302, 403)
    client.post(f"/judging/collections/{collection.id}/sources/{person.pk}/", {"kind": "person", "role": "counted"})
    assert person.pk in sources.advisory_accounts(collection=collection)  # an assessor's post changed nothing


def test_the_sources_api_reads_for_researchers_and_writes_for_admins():
    collection = make_collection(topics=1)
    person = make_user("assessor")
    clients = role_clients()
    url = f"/api/collections/{collection.id}/sources/{person.pk}/"
    assert clients["researcher"].patch(url, {"role": "gold"}, format="json").status_code == 403
    answer = clients["admin"].patch(url, {"role": "gold", "reason": "reference"}, format="json")
    assert answer.status_code == 200 and answer.json()["role"] == "gold"
    assert answer.json()["history"][0]["reason"] == "reference"
    listed = clients["researcher"].get(f"/api/collections/{collection.id}/sources/").json()
    assert [(r["account"], r["role"]) for r in listed] == [(person.pk, "gold")]
    assert clients["assessor"].get(f"/api/collections/{collection.id}/sources/").status_code == 403


def test_the_standing_api_counts_people_inside_the_pool():
    collection = make_collection(max_grade=3, topics=2, documents=12, runs=3, depth=6)
    pool = list(PoolItem.objects.filter(topic__collection=collection).values_list("topic_id", "document_id"))
    judge = machine_judges.machine_judge_create(collection=collection, name="bm25", provider="lexical")
    services.judgments_record_bulk(labels={(judge.account, t, d): 3 for t, d in pool})
    person = make_user("assessor")
    services.judgments_record_bulk(labels={(person, t, d): (2 if i % 2 else 0) for i, (t, d) in enumerate(pool[:5])})
    figures = role_clients()["researcher"].get(f"/api/collections/{collection.id}/standing/").json()
    assert figures == {
        "pooled_items": len(pool),
        "items_judged_by_people": 5,
        "items_labelled_only_by_machines": len(pool) - 5,
        "unjudged_by_people": len(pool) - 5,
        "relevant_found_by_people": 2,
        "estimated_relevant_left": figures["estimated_relevant_left"],
    }
    assert figures["estimated_relevant_left"] >= 0


@pytest.mark.django_db(transaction=True)
def test_the_migration_keeps_every_collections_meaning():
    executor = MigrationExecutor(connection)
    executor.migrate([("judging", "0020_preferences")])
    old = executor.loader.project_state([("judging", "0020_preferences")]).apps
    User = old.get_model("auth", "User")
    Collection, Topic_, Document = (old.get_model("judging", n) for n in ("Collection", "Topic", "Document"))
    Judgment, MachineJudge = old.get_model("judging", "Judgment"), old.get_model("judging", "MachineJudge")
    person, reference = User.objects.create(username="ann"), User.objects.create(username="qrels:nist")
    machine, clicks = User.objects.create(username="machine:1:bm25"), User.objects.create(username="qrels:clicks")
    collection = Collection.objects.create(name="old", advisory_assessors=[machine.pk, clicks.pk],
                                           gold_assessors=[reference.pk])  # fmt: skip
    MachineJudge.objects.create(collection=collection, name="bm25", account=machine, provider="lexical")
    topic = Topic_.objects.create(collection=collection, number="1", title="t")
    document = Document.objects.create(collection=collection, docno="d")
    for who in (person, reference, machine, clicks):
        Judgment.objects.create(assessor=who, topic=topic, document=document, grade=1)
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(executor.loader.graph.leaf_nodes())
    rows = dict(LabelSource.objects.filter(collection_id=collection.pk).values_list("account_id", "kind").order_by())
    roles = dict(LabelSource.objects.filter(collection_id=collection.pk).values_list("account_id", "role"))
    assert rows == {reference.pk: "imported", machine.pk: "machine", clicks.pk: "clicks"}  # ann: the default
    assert roles == {reference.pk: "gold", machine.pk: "advisory", clicks.pk: "advisory"}


def test_every_exported_label_carries_its_source_and_provenance(tmp_path):
    import json

    from evaluation.exports.qrels import qrels_export
    from tests.chat_server import chat_server

    collection = make_collection(max_grade=3, topics=1, documents=4, runs=1, depth=4)
    topic = Topic.objects.get(collection=collection)
    docnos = list(collection.documents.order_by("id").values_list("docno", flat=True))
    path = tmp_path / "nist.qrels"
    path.write_text("# NIST's labels\n" + "".join(f"{topic.number} 0 {d} 1\n" for d in docnos))
    qrels_import(collection=collection, path=path, name="nist.qrels", assessor="nist")
    person = make_user("assessor")
    services.assignment_create(assessor=person, topic=topic)
    first = collection.documents.get(docno=docnos[0])
    services.judgment_record(assessor=person, topic=topic, document=first, grade=2, seconds_total=7.5)
    truth = {(topic.number, d[1:]): 2 for d in docnos}
    with chat_server(truth) as server:
        judge = machine_judges.machine_judge_create(
            collection=collection, name="llm", provider="chat", base_url=server.base_url, model="tiny"
        )
        machine_judges.machine_judge_run(judge=judge)
    _, meta, lines = qrels_export(collection=collection, fmt="jsonl", source="all")
    rows = [json.loads(line) for line in lines]
    imported = [r for r in rows if r["assessor"] == "qrels:nist"]
    assert [(r["source"], r["origin"]["file"], r["origin"]["line"]) for r in imported] == [
        ("imported", "nist.qrels", line) for line in range(2, 2 + len(docnos))
    ]
    (mine,) = [r for r in rows if r["assessor"] == person.username]
    assert (mine["source"], mine["seconds"], "origin" in mine) == ("person", 7.5, False)
    machine = [r for r in rows if r["source"] == "machine"]
    assert len(machine) == len(docnos)
    assert {(r["origin"]["judge"], r["origin"]["model"], r["origin"]["prompt"]) for r in machine} == {
        ("llm", "tiny", "umbrela")
    }
    assert all(r["origin"]["prompt_tokens"] > 0 and r["origin"]["prompt_version"] for r in machine)
    assert meta["label_sources"] == {
        "counted": {"imported": len(docnos), "person": 1},
        "advisory": {"machine": len(docnos)},
    }
