"""Qrels and results exports: a round trip through trec_eval gives exactly the values the app shows; every
variant (assessor, all, binarised, topic subset, JSONL, CSV) and format; provenance; who may download."""

from __future__ import annotations

import csv
import io
import json

import pytest
import pytrec_eval
from django.core.management import call_command
from django.http import StreamingHttpResponse

from evaluation.models import CollectionState
from judging.models import Judgment
from tests.api_clients import role_clients
from tests.evaluation.conftest import MEASURES
from tests.factories import make_user, stored_aggregates, stored_values

pytestmark = pytest.mark.django_db(transaction=True)  # real commits, so the recompute runs after each judgment


def _body(response) -> str:
    assert isinstance(response, StreamingHttpResponse)
    return b"".join(response.streaming_content).decode()


def test_exported_consensus_qrels_evaluated_by_trec_eval_give_exactly_the_values_the_app_shows(judged):
    collection, _, _ = judged
    response = role_clients()["researcher"].get(f"/api/collections/{collection.id}/qrels/")
    qrels: dict[str, dict[str, int]] = {}
    for line in _body(response).splitlines():
        topic, _, docno, grade = line.split()
        qrels.setdefault(topic, {})[docno] = int(grade)
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, set(MEASURES.values()))
    compared = 0
    for run in collection.runs.all():
        scores = {
            r.topic.number: {
                collection.documents.get(pk=d).docno: float(s)
                for d, s in zip(r.documents(), r.score_array(), strict=False)
            }
            for r in run.rankings.select_related("topic")
        }
        expected = evaluator.evaluate(scores)
        # Every trec_eval measure stored (Judged@10, always stored too, has no trec_eval counterpart).
        numbers = dict(collection.topics.values_list("id", "number"))
        for (run_id, topic_id, measure), value in stored_values(collection, list(MEASURES)).items():
            if run_id == run.id:
                assert value == expected[numbers[topic_id]][MEASURES[measure]], (run.tag, measure)
                compared += 1
    assert compared == 3 * 3 * len(MEASURES)


def test_every_assessor_one_assessor_binarised_and_topic_subsets(judged):
    collection, a, b = judged
    admin = role_clients()["admin"]
    url = f"/api/collections/{collection.id}/qrels/"
    every = _body(admin.get(url, {"source": "all"})).splitlines()
    assert {line.split()[1] for line in every} == {a.username, b.username}
    assert len(every) == Judgment.objects.filter(topic__collection=collection, grade__isnull=False).count()
    only_a = _body(admin.get(url, {"source": "assessor", "assessor": a.username})).splitlines()
    assert {line.split()[1] for line in only_a} == {a.username}
    binary = _body(admin.get(url, {"binarise_at": 2})).splitlines()
    assert {line.split()[3] for line in binary} <= {"0", "1"}
    subset = _body(admin.get(url, {"topics": "2"})).splitlines()
    assert subset and {line.split()[0] for line in subset} == {"2"}


def test_jsonl_and_csv_carry_provenance_and_researchers_see_pseudonyms(judged):
    collection, a, _ = judged
    clients = role_clients()
    url = f"/api/collections/{collection.id}/qrels/"
    response = clients["researcher"].get(url, {"source": "all", "format": "jsonl"})
    records = [json.loads(line) for line in _body(response).splitlines()]
    assert {r["assessor"] for r in records} == {"assessor-1", "assessor-2"}
    assert all({"topic", "docno", "grade", "time"} <= set(r) for r in records)
    assert any(r.get("note") for r in records)
    version = CollectionState.objects.get(collection=collection).qrels_version
    assert response["X-Qrels-Version"] == str(version) and f"-v{version}." in response["Content-Disposition"]
    assert json.loads(response["X-Provenance"])["settings"].startswith("rel>=1")
    rows = list(csv.DictReader(io.StringIO(_body(clients["admin"].get(url, {"format": "csv"})))))
    assert rows and all(row["confidence"] for row in rows) and {row["assessor"] for row in rows} == {""}
    assert a.username in _body(clients["admin"].get(url, {"source": "all", "format": "csv"}))


def test_results_export_in_trec_eval_q_format_csv_and_json_match_the_stored_values(judged):
    collection, _, _ = judged
    admin = role_clients()["admin"]
    url = f"/api/collections/{collection.id}/results/export/"
    as_json = json.loads(_body(admin.get(url, {"format": "json"})))
    chosen = collection.measures  # exported; Judged@10 is stored beside them for the pages, not exported unasked
    tags = dict(collection.runs.values_list("id", "tag"))
    numbers = dict(collection.topics.values_list("id", "number"))
    stored = {
        (tags[run_id], numbers[topic_id], measure): value
        for (run_id, topic_id, measure), value in stored_values(collection, chosen).items()
    }
    exported = {
        (run, topic, measure): value
        for run, topics in as_json["results"].items()
        for topic, values in topics.items()
        for measure, value in values.items()
    }
    assert exported == stored
    aggregates = {(tags[run_id], m): value for (run_id, m), (value, _) in stored_aggregates(collection, chosen).items()}
    assert {(run, m): v for run, values in as_json["aggregates"].items() for m, v in values.items()} == aggregates
    assert as_json["provenance"]["qrels_version"] == CollectionState.objects.get(collection=collection).qrels_version
    text = _body(admin.get(url, {"format": "trec", "runs": "run1"})).splitlines()
    assert text[0].split("\t") == ["runid                 ", "all", "run1"]
    assert all(len(line.split("\t")) == 3 for line in text)
    printed = {line.split("\t")[0].strip() for line in text[1:]}
    trec_names = {"AP": "map", "P@5": "P_5", "P@10": "P_10", "nDCG@10": "ndcg_cut_10", "RR": "recip_rank"}
    assert {trec_names[m] for m in chosen if m in trec_names} <= printed  # trec_eval's own names
    assert not printed & set(trec_names)
    rows = list(csv.DictReader(io.StringIO(_body(admin.get(url, {"format": "csv"})))))
    assert len(rows) == len(stored) + len(aggregates)


def test_assessors_and_strangers_cannot_download_and_bad_parameters_are_400s(judged):
    collection, _, _ = judged
    clients = role_clients()
    url = f"/api/collections/{collection.id}/qrels/"
    assert clients["assessor"].get(url).status_code == 403
    assert clients["anonymous"].get(url).status_code == 401
    for params in (
        {"format": "xml"},
        {"source": "assessor", "assessor": "ghost"},
        {"binarise_at": "x"},
        {"binarise_at": 9},
    ):
        response = clients["admin"].get(url, params)
        assert response.status_code == 400, params
        assert response.json()["error"]["status"] == 400
    page = clients["assessor"]
    page.force_login(make_user("assessor"))
    assert page.get(f"/results/{collection.id}/qrels/").status_code == 403


def test_the_export_commands_write_the_file_and_its_provenance_sidecar(judged, tmp_path):
    collection, _, _ = judged
    target = tmp_path / "qrels.txt"
    call_command("export_qrels", collection.name, "-o", str(target))
    sidecar = json.loads((tmp_path / "qrels.txt.provenance.json").read_text())
    assert sidecar["source"] == "consensus" and sidecar["qrels_version"] >= 1
    assert all(len(line.split()) == 4 for line in target.read_text().splitlines())
    results = tmp_path / "results.csv"
    call_command("export_results", collection.name, "-o", str(results), "--format", "csv")
    assert results.read_text().startswith("run,topic,measure,value\n")


def test_csv_exports_neutralise_formulas_in_text_cells():
    from evaluation.files import spreadsheet_text

    assert spreadsheet_text('=HYPERLINK("http://x","click")') == '\'=HYPERLINK("http://x","click")'
    assert [spreadsheet_text(v) for v in ("+1", "-x", "@SUM(A1)", "\tx", "plain", "")] == [
        "'+1",
        "'-x",
        "'@SUM(A1)",
        "'\tx",
        "plain",
        "",
    ]


def test_a_formula_typed_as_a_note_is_exported_as_text(client):
    from judging import services as judging_services
    from tests.factories import make_collection, make_user

    collection = make_collection(topics=1, runs=1)
    topic = collection.topics.get()
    assessor = make_user("assessor")
    judging_services.assignment_create(assessor=assessor, topic=topic)
    item = topic.pool_items.first()
    judging_services.judgment_record(
        assessor=assessor, topic=topic, document=item.document, grade=1, note='=HYPERLINK("http://evil","x")'
    )
    client.force_login(make_user("admin"))
    response = client.get(f"/results/{collection.id}/qrels/", {"format": "csv", "source": "all"})
    body = b"".join(response.streaming_content).decode()
    assert "'=HYPERLINK" in body and ",=HYPERLINK" not in body and '"=HYPERLINK' not in body
