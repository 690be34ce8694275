"""Every way a user can name a measure (ir_measures' spelling, trec_eval's with parameters, a family with several
cutoffs) resolves once, when a collection's settings are saved, to the canonical names its values are stored and
read under: a measure asked for always shows its value, and a missing one is never shown beside "fresh"."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from evaluation import services as evaluation_services
from evaluation.models import RunAggregates
from judging import services
from measures import canonical_names, parse_measures
from measures.trec_names import TREC_ORDER
from tests.factories import make_collection, make_user

TREC_ONLY_OUTPUT = {"runid", "num_q", "relstring"}


@pytest.mark.parametrize(
    ("typed", "canonical"),
    [
        (["map", "P.7", "ndcg_cut.5", "nDCG@10", "recall.20"], ["AP", "P@7", "nDCG@5", "nDCG@10", "R@20"]),
        (["ndcg_cut.5,10", "nDCG@5"], ["nDCG@5", "nDCG@10"]),
        (["P@5", "P.5", "P(rel=1)@5"], ["P@5"]),
        (["recip_rank", "RR", "bpref", "Bpref"], ["RR", "Bpref"]),
    ],
)
def test_every_spelling_of_a_measure_gives_one_canonical_name(typed, canonical):
    assert canonical_names(typed) == canonical


@pytest.mark.parametrize("family", [name for name in TREC_ORDER if name not in TREC_ONLY_OUTPUT])
def test_a_canonical_name_parses_back_to_the_same_measure(family):
    for name in canonical_names([family]):
        assert [str(m) for m in parse_measures(name)] == [name]
        assert canonical_names([name]) == [name]


@pytest.mark.django_db
def test_a_collection_created_through_the_api_with_trec_eval_names_shows_every_value_fresh(
    django_capture_on_commit_callbacks,
):
    admin = make_user("admin")
    client = APIClient()
    client.force_authenticate(admin)
    typed = ["map", "P.7", "ndcg_cut.5", "nDCG@10", "recall.20"]
    created = client.post("/api/collections/", {"name": "spelled", "max_grade": 3, "measures": typed}, format="json")
    assert created.status_code == 201, created.json()
    assert created.json()["measures"] == ["AP", "P@7", "nDCG@5", "nDCG@10", "R@20"]
    twin = make_collection(topics=2, runs=3, measures=["AP", "P@7", "nDCG@5", "nDCG@10", "R@20"])
    collection = type(twin).objects.get(pk=created.json()["id"])
    _fill_like(twin, collection, admin)
    with django_capture_on_commit_callbacks(execute=True):
        evaluation_services.collection_recompute(collection_id=collection.id)
        evaluation_services.collection_recompute(collection_id=twin.id)
    results = client.get(f"/api/collections/{collection.id}/results/").json()
    values = [value for run in results["runs"] for value in run["values"].values()]
    assert len(values) == 15 and None not in values
    assert results["fresh"] is True and results["missing_measures"] == []
    expected = client.get(f"/api/collections/{twin.id}/results/").json()
    assert [r["values"] for r in results["runs"]] == [r["values"] for r in expected["runs"]]


def _fill_like(source, target, admin) -> None:
    """The same topics, documents, runs and judgments as `source`, through the services."""
    services.topics_create(
        collection=target, topics=[{"number": t.number, "title": t.title} for t in source.topics.order_by("id")]
    )
    services.documents_create(
        collection=target, documents=[{"docno": d.docno, "title": d.title} for d in source.documents.order_by("id")]
    )
    docnos = dict(source.documents.values_list("id", "docno"))
    for run in source.runs.order_by("id"):
        scores = {
            ranking.topic.number: {docnos[d]: float(-i) for i, d in enumerate(ranking.documents().tolist())}
            for ranking in run.rankings.select_related("topic")
        }
        services.run_create(collection=target, tag=run.tag, scores=scores)
    labels = {}
    assessor = make_user()
    for number, docno, grade in [("1", "d1", 2), ("1", "d2", 1), ("2", "d3", 3), ("2", "d0", 0)]:
        for collection in (source, target):
            labels[(assessor, collection.topics.get(number=number).id, collection.documents.get(docno=docno).id)] = (
                grade
            )
    services.judgments_record_bulk(labels=labels, changed_by=admin)


@pytest.mark.django_db
def test_a_measure_asked_for_without_a_stored_value_is_never_fresh():
    collection = make_collection(topics=2, measures=["P@5", "nDCG@10"])
    evaluation_services.collection_recompute(collection_id=collection.id)
    client = APIClient()
    client.force_authenticate(make_user("researcher"))
    assert client.get(f"/api/collections/{collection.id}/status/").json()["fresh"] is True
    RunAggregates.objects.filter(collection=collection, measure="nDCG@10").delete()  # as an old, misnamed store
    status = client.get(f"/api/collections/{collection.id}/status/").json()
    assert (status["fresh"], status["stale_topics"], status["missing_measures"]) == (False, 0, ["nDCG@10"])
    results = client.get(f"/api/collections/{collection.id}/results/").json()
    assert results["fresh"] is False and results["missing_measures"] == ["nDCG@10"]


@pytest.mark.django_db
def test_the_measure_list_is_a_page_and_the_collection_form_links_to_it(client):
    client.force_login(make_user("admin"))
    page = client.get("/results/measures/").content.decode()
    assert 'data-family="nDCG"' in page and "<code>ndcg_cut</code>" in page and "<code>ndcg_cut.5,10</code>" in page
    form = client.get("/judging/collections/new/").content.decode()
    assert 'href="/results/measures/"' in form
    from tests.judging.test_setup_pages import FORM

    refused = client.post("/judging/collections/new/", {**FORM, "more_measures": "nDGC@10"})
    text = refused.content.decode()
    assert "unknown measure &#x27;nDGC@10&#x27;" in text and "python -m evaluation" not in text


@pytest.mark.parametrize("family", [name for name in TREC_ORDER if name not in TREC_ONLY_OUTPUT])
def test_the_name_trec_eval_prints_for_a_measure_names_it_again(family):
    """People copy `P_5` or `ndcg_cut_10` from trec_eval's output into the measures field."""
    from measures import output_name

    for measure in parse_measures(family):
        printed = output_name(measure)
        if printed.startswith(("relstring", "runid", "num_q")):
            continue
        assert canonical_names([printed]) == [str(measure)], printed


def test_printed_names_and_their_input_spellings_agree():
    assert canonical_names(["P_5", "ndcg_cut_10", "map_cut_100", "iprec_at_recall_0.10"]) == canonical_names(
        ["P.5", "ndcg_cut.10", "map_cut.100", "iprec_at_recall.0.10"]
    )
