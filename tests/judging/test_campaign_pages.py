"""Admins' campaign pages: dashboard figures, pool preview and build, assignment and the adjudication queue."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from judging import progress, services
from judging.jobs.models import Job, JobState
from judging.models import Adjudication, Assignment, Judgment, PoolItem
from tests.factories import make_collection, make_user

pytestmark = pytest.mark.django_db


@pytest.fixture
def admin_client(client):
    client.force_login(make_user("admin"))
    return client


def _pair_campaign(k=2, tolerance=0):
    collection = make_collection(
        max_grade=3, topics=2, documents=8, runs=2, depth=4, assessors_per_item=k, disagreement_tolerance=tolerance
    )
    a, b = make_user("assessor"), make_user("assessor")
    for topic in collection.topics.all():
        services.assignment_create(assessor=a, topic=topic)
        services.assignment_create(assessor=b, topic=topic)
    return collection, a, b


def _items(topic):
    return [item.document for item in topic.pool_items.order_by("-priority", "id")]


def test_dashboard_figures_count_complete_items_disagreements_and_labels_left():
    collection, a, b = _pair_campaign(k=2, tolerance=1)
    topic = collection.topics.order_by("id").first()
    d1, d2, d3 = _items(topic)[:3]
    for person, document, grade in [(a, d1, 3), (b, d1, 1), (a, d2, 2), (b, d2, 3), (a, d3, 0)]:
        services.judgment_record(assessor=person, topic=topic, document=document, grade=grade, seconds_spent=10)
    figures = progress.campaign_progress(collection=collection)
    row = next(t for t in figures.topics if t.id == topic.id)
    pool_total = PoolItem.objects.filter(topic__collection=collection).count()
    assert (row.complete, row.judgments, row.disagreements) == (2, 5, 1)  # 3 vs 1 is beyond tolerance 1; 2 vs 3 not
    assert figures.needed == 2 * pool_total and figures.remaining == 2 * pool_total - 5
    assert figures.last_hour == 5 and figures.median_seconds == 10.0
    assert figures.eta_seconds == pytest.approx(figures.remaining * 10.0 / 2)  # both assessors judged this hour
    assert {p.username: p.judgments for p in figures.assessors} == {a.username: 3, b.username: 2}


def test_an_adjudication_settles_an_item_and_takes_it_out_of_the_open_disagreements():
    collection, a, b = _pair_campaign(k=3)
    topic = collection.topics.order_by("id").first()
    d1 = _items(topic)[0]
    services.judgment_record(assessor=a, topic=topic, document=d1, grade=0)
    services.judgment_record(assessor=b, topic=topic, document=d1, grade=2)
    assert [i.docno for i in progress.disputed_items(collection=collection)] == [d1.docno]
    services.adjudication_record(topic=topic, document=d1, grade=2, adjudicator=make_user("admin"))
    assert progress.disputed_items(collection=collection) == []
    assert len(progress.disputed_items(collection=collection, include_settled=True)) == 1
    figures = progress.campaign_progress(collection=collection)
    assert next(t for t in figures.topics if t.id == topic.id).complete == 1 and figures.disagreements == 0


def test_campaign_judged_at_10_is_the_engines_share_of_each_runs_top_10_over_judged_topics():
    collection = make_collection(topics=2, documents=8, runs=1, depth=4)
    person = make_user("assessor")
    topic = collection.topics.order_by("id").first()
    services.assignment_create(assessor=person, topic=topic)
    ranking = topic.rankings.get().documents()
    for document_id in ranking[:3]:
        services.judgment_record(
            assessor=person, topic=topic, document=collection.documents.get(pk=document_id), grade=1
        )
    from evaluation import selectors as evaluation_selectors
    from evaluation.services import collection_recompute

    collection_recompute(collection_id=collection.id)

    (coverage,) = evaluation_selectors.runs_judged_at_10(collection=collection)
    # Judged@10: of the top min(10, n); over the topics with judgments (as trec_eval evaluates them).
    assert coverage == ("run0", pytest.approx(3 / 4))


def test_time_to_finish_is_shared_by_assigned_assessors_when_nobody_judged_in_the_last_hour():
    collection, a, _ = _pair_campaign(k=1)
    topic = collection.topics.order_by("id").first()
    services.judgment_record(assessor=a, topic=topic, document=_items(topic)[0], grade=1, seconds_spent=30)
    Judgment.objects.update(created_at=timezone.now() - timedelta(hours=3))
    figures = progress.campaign_progress(collection=collection)
    assert figures.last_hour == 0
    assert figures.eta_seconds == pytest.approx(figures.remaining * 30 / 2)


def test_without_recorded_times_the_recent_rate_is_taken_over_at_least_ten_minutes():
    collection, a, _ = _pair_campaign(k=1)
    topic = collection.topics.order_by("id").first()
    services.judgment_record(assessor=a, topic=topic, document=_items(topic)[0], grade=1)  # no time: an import
    figures = progress.campaign_progress(collection=collection)
    assert figures.median_seconds is None
    assert figures.eta_seconds == pytest.approx(3600 * figures.remaining * (10 / 60) / 1)


def test_campaign_page_is_for_admins_and_its_partial_answers_htmx_polls_in_bounded_queries(
    admin_client, django_assert_max_num_queries
):
    collection, a, _ = _pair_campaign()
    assessor_client = Client()
    assessor_client.force_login(a)
    assert assessor_client.get(f"/judging/collections/{collection.id}/").status_code == 403  # the styled 403
    with django_assert_max_num_queries(16):  # with the roles, the coverage and the machine judges' names
        page = admin_client.get(f"/judging/collections/{collection.id}/", HTTP_HX_REQUEST="true")
    assert page.status_code == 200 and b'id="campaign"' in page.content and b"<html" not in page.content
    assert b"every 5s" in page.content


def test_pool_preview_writes_nothing_and_build_runs_as_a_job(admin_client, django_capture_on_commit_callbacks):
    collection = make_collection(topics=2, documents=10, runs=2, depth=6)
    PoolItem.objects.filter(topic__collection=collection).delete()
    url = f"/judging/collections/{collection.id}/pool/"
    page = admin_client.post(url, {"strategy": "depth", "size": "3", "preview": "1"})
    assert page.status_code == 200 and b"Unique contribution" in page.content
    assert not PoolItem.objects.filter(topic__collection=collection).exists()
    added = page.context["preview"].added
    with django_capture_on_commit_callbacks(execute=True):
        response = admin_client.post(url, {"strategy": "depth", "size": "3", "build": "1"})
    job = Job.objects.get(collection=collection, kind__startswith="pool build")
    assert response.url == f"/judging/jobs/{job.id}/"
    assert job.state == JobState.DONE and job.result["added"] == added
    assert PoolItem.objects.filter(topic__collection=collection).count() == added


def test_assignment_page_assigns_in_balance_and_reassigns(admin_client):
    collection = make_collection(topics=3, assessors_per_item=1)
    a, b = make_user("assessor"), make_user("assessor")
    url = f"/judging/collections/{collection.id}/assignments/"
    response = admin_client.post(url, {"assessors": [a.id, b.id]})
    assert response.status_code == 302
    assert Assignment.objects.filter(topic__collection=collection).count() == 3
    assignment = Assignment.objects.filter(assessor=a).first()
    admin_client.post(f"/judging/assignments/{assignment.id}/reassign/", {"assessor": b.id})
    assert Assignment.objects.get(pk=assignment.pk).assessor == b
    page = admin_client.get(url)
    assert page.content.count(b'data-topic="') == 3
    same = admin_client.post(f"/judging/assignments/{assignment.id}/reassign/", {"assessor": b.id}, follow=True)
    assert b"already has topic" in same.content and b"reassigned" not in same.content


def test_a_topic_with_its_k_assessors_gets_one_more_only_when_asked_and_nothing_added_says_why(admin_client):
    collection = make_collection(topics=2, assessors_per_item=1)
    a, b = make_user("assessor"), make_user("assessor")
    topic = collection.topics.order_by("id").first()
    url = f"/judging/collections/{collection.id}/assignments/"
    admin_client.post(url, {"assessors": [a.id]})
    balanced = admin_client.post(url, {"assessors": [b.id], "topics": [topic.id]}, follow=True).content.decode()
    assert "No assignment added: every chosen topic already has its 1 assessor (k = 1)" in balanced
    assert "Add the chosen assessors to the chosen topics" in balanced
    added = admin_client.post(url, {"assessors": [b.id], "topics": [topic.id], "mode": "add"}, follow=True)
    assert b"1 assignment(s) added." in added.content
    assert sorted(Assignment.objects.filter(topic=topic).values_list("assessor_id", flat=True)) == sorted([a.id, b.id])
    again = admin_client.post(url, {"assessors": [b.id], "topics": [topic.id], "mode": "add"}, follow=True)
    assert b"every chosen assessor is already on every chosen topic" in again.content


def test_adjudicating_from_the_queue_records_the_admins_label(admin_client):
    collection, a, b = _pair_campaign()
    topic = collection.topics.order_by("id").first()
    document = _items(topic)[0]
    services.judgment_record(assessor=a, topic=topic, document=document, grade=0, note="off topic")
    services.judgment_record(assessor=b, topic=topic, document=document, grade=3)
    page = admin_client.get(f"/judging/collections/{collection.id}/adjudication/")
    assert b"off topic" in page.content and page.content.count(b"data-grade") == 2
    admin_client.post(f"/judging/adjudication/{topic.id}/{document.id}/", {"grade": "3", "note": "answers it"})
    assert Adjudication.objects.get(topic=topic, document=document).grade == 3
    assert b"No open disagreements" in admin_client.get(f"/judging/collections/{collection.id}/adjudication/").content


def test_imported_qrels_outside_the_pool_are_not_counted_as_pool_work(tmp_path):
    from judging.imports.services import qrels_import

    collection = make_collection(topics=1, documents=12, runs=1, depth=4, assessors_per_item=1)
    topic = collection.topics.get()
    pooled = {item.document.docno for item in topic.pool_items.select_related("document")}
    outside = [d.docno for d in collection.documents.order_by("id") if d.docno not in pooled]
    path = tmp_path / "qrels"
    path.write_text("".join(f"{topic.number} 0 {docno} 1\n" for docno in [*outside[:6], sorted(pooled)[0]]))
    qrels_import(collection=collection, path=path)
    figures = progress.campaign_progress(collection=collection)
    assert figures.needed == len(pooled)
    assert figures.remaining == len(pooled) - 1  # only the pooled document's label is pool work done
    assert figures.topics[0].complete == 1


def test_the_dashboard_summarises_each_collection_in_a_bounded_number_of_queries(
    admin_client, django_assert_max_num_queries
):
    collections = [make_collection(topics=3), make_collection(topics=5)]
    assessor = make_user("assessor")
    topic = collections[0].topics.first()
    services.assignment_create(assessor=assessor, topic=topic)
    services.judgment_record(assessor=assessor, topic=topic, document=topic.pool_items.first().document, grade=1)
    with django_assert_max_num_queries(8):
        page = admin_client.get("/judging/dashboard/")
    text = page.content.decode()
    for collection in collections:
        assert f'data-collection="{collection.id}"' in text
    assert "1 of" in text


def test_adjudicating_one_by_one_shows_the_document_and_answers_the_next_item_in_place(admin_client):
    collection, a, b = _pair_campaign(k=2)
    topic = collection.topics.order_by("id").first()
    d1, d2 = _items(topic)[:2]
    for document in (d1, d2):
        services.judgment_record(assessor=a, topic=topic, document=document, grade=0, note="off topic")
        services.judgment_record(assessor=b, topic=topic, document=document, grade=3)
    page = admin_client.get(f"/judging/collections/{collection.id}/adjudication/next/").content.decode()
    assert f'data-document="{d1.id}"' in page and d1.body in page and "“off topic”" in page
    assert topic.title in page and "2 open" in page
    response = admin_client.post(
        f"/judging/adjudication/{topic.id}/{d1.id}/", {"grade": 2, "note": "partly"}, HTTP_HX_REQUEST="true"
    )
    nxt = response.content.decode()
    assert "<html" not in nxt and f'data-document="{d2.id}"' in nxt and "1 open" in nxt
    assert Adjudication.objects.get(topic=topic, document=d1).grade == 2
    last = admin_client.post(f"/judging/adjudication/{topic.id}/{d2.id}/", {"grade": 1}, HTTP_HX_REQUEST="true")
    assert "No open disagreements" in last.content.decode()


def test_the_dashboard_loads_the_runs_coverage_from_the_evaluation_app(admin_client):
    collection, a, _ = _pair_campaign()
    page = admin_client.get(f"/judging/collections/{collection.id}/")
    url = f"/results/{collection.id}/coverage/"
    assert f'hx-get="{url}"'.encode() in page.content
    panel = admin_client.get(url, HTTP_HX_REQUEST="true")
    assert panel.status_code == 200 and b"Judged@10 per run" in panel.content and b"<html" not in panel.content
    assessor_client = Client()
    assessor_client.force_login(a)
    assert assessor_client.get(url).status_code == 403


def test_judgments_and_last_hour_count_the_same_thing_and_items_judged_match_the_dashboard(admin_client):
    """A "can't judge" was counted in the last hour and not in the judgments: 348 beside 350."""
    from judging.selectors import collections_overview

    collection, a, b = _pair_campaign(k=2)
    topic = collection.topics.order_by("id").first()
    d1, d2, d3 = _items(topic)[:3]
    for person, document, grade in [(a, d1, 3), (b, d1, 1), (a, d2, 2)]:
        services.judgment_record(assessor=person, topic=topic, document=document, grade=grade)
    services.judgment_record(assessor=b, topic=topic, document=d3, grade=None, cannot_judge_reason="Topic is unclear")
    figures = progress.campaign_progress(collection=collection)
    assert (figures.judgments, figures.last_hour, figures.cannot_judge) == (3, 3, 1)
    assert sum(p.last_hour for p in figures.assessors) == sum(p.judgments for p in figures.assessors) == 3
    overview = collections_overview().get(pk=collection.pk)
    assert (figures.items_judged, figures.items) == (overview.judged_items, overview.pool_size)
    assert figures.items_judged == 2
    assert figures.items_complete == 1
    page = admin_client.get(f"/judging/collections/{collection.id}/").content.decode()
    assert f'data-figure="items-judged">2 of {figures.items}<' in page
    dashboard = admin_client.get("/judging/dashboard/").content.decode()
    assert "Items judged" in dashboard and f"<td>2 of {figures.items}</td>" in dashboard


def test_an_empty_pool_has_no_time_to_finish(admin_client):
    collection = services.collection_create(name="empty", max_grade=1)
    figures = progress.campaign_progress(collection=collection)
    assert (figures.items, figures.needed, figures.eta_seconds) == (0, 0, None)
    page = admin_client.get(f"/judging/collections/{collection.id}/").content.decode()
    assert 'data-figure="eta">—<' in page and "no pool yet" in page
