"""Search endpoints and snapshots in a collection (#49): an endpoint is checked before it is saved, naming the field;
a test query shows the rendered request and the mapped results and saves nothing; a fetch is a job whose snapshot
is a run like any other, with its recipe, the engine's order, new documents from the hits' display fields, and its
holes; two snapshots compare by overlap, and the new documents can be offered to the judging queue."""

from __future__ import annotations

import pytest
from django.core.exceptions import ValidationError

from judging.models import Document, PoolItem, Ranking, Run, Topic
from judging.search_fetch import selectors, services
from judging.search_fetch.models import SearchEndpoint, SearchSnapshot
from measures.overlap import jaccard, rbo
from tests.chat_server import outbound_allowed
from tests.factories import make_collection, make_user
from tests.search_servers import search_server

pytestmark = pytest.mark.django_db


def test_rbo_and_jaccard_on_hand_worked_rankings():
    assert rbo(["a", "b", "c"], ["a", "b", "c"]) == pytest.approx(1.0)
    assert rbo(["a", "b"], ["c", "d"]) == 0.0
    # Depth 1: no overlap; depth 2: {a, b} both: X = [0, 2]; RBO_ext = (1-p)/p (0 + 2/2 p^2) + (2/2) p^2 with p 0.9
    assert rbo(["a", "b"], ["b", "a"]) == pytest.approx(0.1 / 0.9 * 0.81 + 0.81)
    assert jaccard(["a", "b", "c"], ["b", "c", "d"]) == 0.5 and jaccard(["a", "b", "x"], ["a", "y"], k=1) == 1.0


def _collection():
    collection = make_collection(topics=0, documents=0, runs=0)
    Topic.objects.bulk_create([Topic(collection=collection, number="1", title="red apples"),
                               Topic(collection=collection, number="2", title="pears")])  # fmt: skip
    return collection


def _endpoint(collection, server, **settings):
    return services.search_endpoint_create(collection=collection, name="es", engine="elasticsearch", url=server.url,
                                           index="docs", depth=5, page_size=2, **settings)  # fmt: skip


@pytest.mark.parametrize(
    ("changes", "field"),
    [({"url": "ftp://x"}, "url"), ({"url": "http://user:pw@h"}, "url"), ({"template": '{"q": "{{nope}}"}'},
     "template"), ({"auth": "bearer", "secret_env": "TOKEN"}, "secret_env"), ({"id_path": "a[["}, "id_path"),
     ({"depth": 5000}, "depth"), ({"variables": {"bad name": "1"}}, "variables")],
)  # fmt: skip
def test_an_endpoint_that_could_not_run_is_refused_naming_the_field(changes, field):
    collection = _collection()
    base = {"engine": "elasticsearch", "url": "http://127.0.0.1:9"} | changes
    with outbound_allowed("127.0.0.1:9"), pytest.raises(ValidationError) as refused:
        services.search_endpoint_create(collection=collection, name="x", **base)
    assert field in refused.value.message_dict


def test_a_public_engine_is_refused_no_address_inside_the_network_without_the_operators_leave():
    with pytest.raises(ValidationError, match="loopback"):
        services.search_endpoint_create(collection=_collection(), name="x", engine="solr", url="http://127.0.0.1:8983")


def test_a_test_query_shows_the_request_and_the_results_and_saves_nothing():
    collection = _collection()
    with search_server() as server:
        unsaved = SearchEndpoint(collection=collection, name="try", engine="elasticsearch", url=server.url,
                                 index="docs", title_path="_id")  # fmt: skip
        tried = selectors.query_tried(endpoint=unsaved, query='red "apples"')
    assert tried["failure"] is None and tried["request"]["url"].endswith("/docs/_search")
    assert tried["request"]["json"]["query"]["multi_match"]["query"] == 'red "apples"'
    assert [h["docno"] for h in tried["hits"]] == [d for d, _ in server.ranked("red apples")]
    assert all(not h["known"] for h in tried["hits"])
    assert SearchEndpoint.objects.count() == 0 and Document.objects.count() == 0


def test_a_fetch_is_a_job_whose_snapshot_is_a_run_in_the_engines_order_with_its_recipe(
    django_capture_on_commit_callbacks,
):
    collection = _collection()
    admin = make_user("admin")
    with search_server() as server, django_capture_on_commit_callbacks(execute=True):
        endpoint = _endpoint(collection, server, title_path="_id", variables={"boost": "2"})
        job = services.snapshot_fetch_start(endpoint=endpoint, created_by=admin)
    job.refresh_from_db()
    assert job.state == "done", job.error
    snapshot = SearchSnapshot.objects.get()
    assert job.result["run"] == snapshot.run.tag == "es-s1" and snapshot.complete and snapshot.queries == 2
    run = snapshot.run
    topic = Topic.objects.get(collection=collection, number="1")
    ranking = Ranking.objects.get(run=run, topic=topic)
    import numpy as np

    ids = np.frombuffer(bytes(ranking.document_ids), dtype="<i8").tolist()
    docnos = dict(Document.objects.filter(pk__in=ids).values_list("id", "docno"))
    assert [docnos[i] for i in ids] == [d for d, _ in server.ranked("red apples")][:5]  # ties as the engine sent them
    recipe = snapshot.recipe["1"]
    assert recipe["scores"] == [s for _, s in server.ranked("red apples")][:5]  # the engine's own, tied, scores
    assert all(r["sha256"] and r["status"] == 200 for r in recipe["requests"]) and len(recipe["requests"]) == 3
    assert snapshot.variables == {"boost": "2"} and snapshot.settings["url"] == server.url
    assert snapshot.recipe["_engine_version"] == "8.15.0"  # as the engine says it at GET /
    assert Document.objects.get(collection=collection, docno="zeta").title == "zeta"  # from its display field


@pytest.mark.parametrize("auth", ["basic", "bearer"])
def test_a_credential_the_engine_echoes_is_masked_in_every_form_from_what_a_fetch_stores(auth, monkeypatch):
    import base64
    import json

    password = "hunter2-correct-horse-battery"
    secret = f"elastic:{password}" if auth == "basic" else password
    monkeypatch.setenv("WORKBENCH_SECRET_ES", secret)
    collection = _collection()
    with search_server() as server:
        server.echo_credential = True
        endpoint = _endpoint(collection, server, auth=auth, secret_env="WORKBENCH_SECRET_ES")
        topics = list(Topic.objects.filter(collection=collection).values_list("id", flat=True))
        snapshot = services.snapshot_fetch(endpoint=endpoint, topic_ids=topics)
        tried = selectors.query_tried(endpoint=endpoint, query="red")
    sent = {r["authorization"] for r in server.requests}
    assert len(sent) == 1 and password in (base64.b64decode(sent.pop()[6:]).decode() if auth == "basic" else secret)
    stored = json.dumps([snapshot.recipe, snapshot.failed, snapshot.settings, tried])
    for form in (secret, password, base64.b64encode(secret.encode()).decode()):
        assert form[:8] not in stored
    assert snapshot.recipe["_engine_version"].startswith("8.15.0") and "[key]" in snapshot.recipe["_engine_version"]


def test_a_query_that_fails_is_a_hole_and_the_snapshot_says_it_is_incomplete():
    collection = _collection()
    with search_server() as server:
        endpoint = _endpoint(collection, server, retries=0, concurrency=1)
        server.faults = [None, "400"]  # the engine's version is asked first
        topics = list(Topic.objects.filter(collection=collection).values_list("id", flat=True))
        snapshot = services.snapshot_fetch(endpoint=endpoint, topic_ids=topics)
    assert not snapshot.complete and snapshot.failed == [{"topic": "1", "reason": "HTTP 400"}]
    assert list(Ranking.objects.filter(run=snapshot.run).values_list("topic__number", flat=True)) == ["2"]


def test_every_query_failing_makes_no_run():
    collection = _collection()
    with search_server() as server:
        endpoint = _endpoint(collection, server, retries=0)
        server.faults = [None, "400", "400"]  # the engine's version is asked first
        with pytest.raises(ValidationError, match="every query failed"):
            services.snapshot_fetch(endpoint=endpoint, topic_ids=list(collection.topics.values_list("id", flat=True)))
    assert Run.objects.count() == 0


def test_typed_queries_become_topics_and_two_snapshots_compare_with_the_new_documents_offered_to_the_queue(client):
    collection = _collection()
    with search_server() as server:
        endpoint = _endpoint(collection, server)
        first = services.snapshot_fetch(
            endpoint=endpoint, topic_ids=list(collection.topics.values_list("id", flat=True))
        )
        server.documents = {"newdoc": "red apples red", **server.documents}  # the index changed
        second = services.snapshot_fetch(
            endpoint=endpoint, topic_ids=list(collection.topics.values_list("id", flat=True))
        )
        job = services.snapshot_fetch_start(endpoint=endpoint, typed=["green wine", "pears"])
    assert set(job.arguments["topic_ids"]) == set(Topic.objects.filter(title__in=["green wine", "pears"])
                                                  .values_list("id", flat=True))  # fmt: skip
    assert Topic.objects.get(collection=collection, title="green wine").number == "3"
    comparison = selectors.snapshot_comparison(before=first, after=second, k=5)
    apples = next(t for t in comparison["topics"] if t["topic"] == "1")
    assert [d["docno"] for d in apples["entered"]] == ["newdoc"] and apples["rbo"] < 1.0
    assert comparison["unjudged_entered"] == 1
    client.force_login(make_user("admin"))
    url = f"/judging/search/compare/?before={first.id}&after={second.id}&k=5"
    page = client.get(url).content.decode()
    assert 'data-figure="rbo"' in page and "newdoc" in page and f"a={first.run_id}&amp;b={second.run_id}" in page
    before = PoolItem.objects.count()
    client.post(url, {"before": first.id, "after": second.id})
    assert PoolItem.objects.count() > before
    assert PoolItem.objects.filter(document__docno="newdoc").exists()


def test_the_pages_are_for_admins_and_the_comparison_for_researchers_too(client):
    collection = _collection()
    client.force_login(make_user("assessor"))
    assert client.get(f"/judging/collections/{collection.id}/search/").status_code in (302, 403)
    assert client.get("/judging/search/compare/?before=1&after=2").status_code == 403
    client.force_login(make_user("admin"))
    assert client.get(f"/judging/collections/{collection.id}/search/").status_code == 200


def test_a_scheduled_endpoint_is_fetched_when_due_and_not_twice_at_once():
    from datetime import timedelta

    from django.utils import timezone

    from judging.jobs.models import Job

    collection = _collection()
    with search_server() as server:
        endpoint = _endpoint(collection, server, schedule_hours=6)
        _endpoint_unscheduled = services.search_endpoint_create(
            collection=collection, name="manual", engine="solr", url=server.url
        )
    (first,) = services.snapshot_fetches_due()
    assert Job.objects.get(pk=first).arguments["endpoint_id"] == endpoint.id
    assert services.snapshot_fetches_due() == []  # queued: not started again
    Job.objects.filter(pk=first).update(state="done")
    assert services.snapshot_fetches_due(now=timezone.now() + timedelta(hours=1)) == []  # not due yet
    assert len(services.snapshot_fetches_due(now=timezone.now() + timedelta(hours=7))) == 1


def test_a_significant_drop_between_snapshots_is_flagged_on_the_leaderboard_and_in_the_api(client):
    from evaluation import services as evaluation_services
    from evaluation.analysis.selectors import search_regressions
    from judging import services as judging_services

    collection = make_collection(topics=8, documents=6, runs=0)
    numbers = list(collection.topics.order_by("id").values_list("number", flat=True))
    good = {n: {"d0": 6.0, "d1": 5.0, "d2": 4.0} for n in numbers}
    bad = {n: {"d1": 6.0, "d2": 5.0, "d0": 4.0} for n in numbers}  # the relevant d0 fell to third
    person = make_user("assessor")
    labels = {(person, t, d): 1 for t in collection.topics.values_list("id", flat=True)
              for d in collection.documents.filter(docno="d0").values_list("id", flat=True)}  # fmt: skip
    judging_services.judgments_record_bulk(labels=labels)
    with outbound_allowed("127.0.0.1:9"):
        endpoint = services.search_endpoint_create(
            collection=collection, name="es", engine="elasticsearch", url="http://127.0.0.1:9", alert_measure="AP",
            alert_drop=0.1,
        )  # fmt: skip
    for tag, scores in (("es-s1", good), ("es-s2", bad)):
        run = judging_services.run_create(collection=collection, tag=tag, scores=scores)
        SearchSnapshot.objects.create(endpoint=endpoint, run=run, queries=8)
    evaluation_services.collection_recompute(collection_id=collection.id)
    (found,) = search_regressions(collection=collection)
    assert found["flagged"] and found["topics"] == 8 and found["mean_difference"] == pytest.approx(-2 / 3)
    assert found["p_value"] < 0.05
    client.force_login(make_user("researcher"))
    assert 'data-regression="es"' in client.get(f"/results/{collection.id}/").content.decode()
    assert client.get(f"/api/collections/{collection.id}/search-regressions/").json()["regressions"][0]["flagged"]


def test_the_page_shows_a_refused_setting_on_its_field(client):
    collection = _collection()
    client.force_login(make_user("admin"))
    page = client.post(f"/judging/collections/{collection.id}/search/", {
        "new-name": "x", "new-engine": "solr", "new-url": "ftp://nowhere", "new-method": "POST", "new-id_path": "id",
        "new-auth": "none", "new-auth_header": "X-API-Key", "new-depth": "10", "new-page_size": "10",
        "new-concurrency": "1", "new-timeout": "5", "new-retries": "0", "new-alert_measure": "nDCG@10",
        "new-alert_drop": "0.05", "save": "1",
    }).content.decode()  # fmt: skip
    assert "give the engine&#x27;s http(s) URL" in page and SearchEndpoint.objects.count() == 0


def _form(**changes) -> dict:
    return {
        "new-name": "x", "new-engine": "elasticsearch", "new-url": "ftp://nowhere", "new-index": "docs",
        "new-method": "POST", "new-id_path": "_id", "new-auth": "none", "new-auth_header": "X-API-Key",
        "new-depth": "10", "new-page_size": "10", "new-concurrency": "1", "new-timeout": "5", "new-retries": "0",
        "new-alert_measure": "nDCG@10", "new-alert_drop": "0.05", "try-query": "red apples", "try": "1",
    } | changes  # fmt: skip


def test_a_refused_test_query_answers_scrolled_to_the_form_with_the_fields_at_fault_named_there(client):
    collection = _collection()
    client.force_login(make_user("admin"))
    page = client.post(f"/judging/collections/{collection.id}/search/", _form()).content.decode()
    assert 'id="endpoint-form" action="#endpoint-form"' in page
    summary = page[page.index("data-form-refused") : page.index("data-form-refused") + 600]
    assert 'href="#id_new-url"' in summary and "http(s) URL" in summary


def test_a_test_querys_request_body_is_shown_as_json_to_paste_into_curl(client):
    collection = _collection()
    client.force_login(make_user("admin"))
    with search_server() as server:
        page = client.post(f"/judging/collections/{collection.id}/search/", _form(**{"new-url": server.url}))
    text = page.content.decode()
    assert 'id="tried"' in text and "&quot;multi_match&quot;" in text and "&#x27;multi_match&#x27;" not in text
    assert text.index('id="tried"') > text.index('id="endpoint-form"')  # beside the button pressed


def test_comparing_a_snapshot_with_itself_is_a_400_that_says_so_not_a_refusal_of_the_role(client):
    from judging import services as judging_services

    collection = _collection()
    with outbound_allowed("127.0.0.1:9"):
        endpoint = services.search_endpoint_create(
            collection=collection, name="es", engine="elasticsearch", url="http://127.0.0.1:9"
        )
    Document.objects.create(collection=collection, docno="d0")
    run = judging_services.run_create(collection=collection, tag="es-s1", scores={"1": {"d0": 1.0}})
    snapshot = SearchSnapshot.objects.create(endpoint=endpoint, run=run, queries=1)
    client.force_login(make_user("admin"))
    answer = client.get("/judging/search/compare/", {"before": snapshot.id, "after": snapshot.id})
    assert answer.status_code == 400 and "compared with itself" in answer.content.decode()
