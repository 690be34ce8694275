"""The assessor's pages over HTTP: start page, judging page, document panel and saves; access, blindness, queries."""

from __future__ import annotations

import json

import pytest
from django.urls import reverse

from judging import selectors, services
from judging.models import Collection, Document, Judgment, JudgmentHistory
from tests.factories import make_collection, make_user

pytestmark = pytest.mark.django_db


def save(client, topic, document, **fields):
    return client.post(
        reverse("judging:judge_save", args=[topic.id, document.id]), fields, HTTP_ACCEPT="application/json"
    )


def config_of(response) -> dict:
    html = response.content.decode()
    start = html.index('<script id="judging-config" type="application/json">') + len(
        '<script id="judging-config" type="application/json">'
    )
    return json.loads(html[start : html.index("</script>", start)])


def test_start_page_shows_progress_time_spent_and_time_left_in_constant_queries(
    client, campaign, django_assert_max_num_queries
):
    collection, assessor = campaign
    topic = collection.topics.get(number="1")
    for item, seconds in zip(topic.pool_items.all()[:2], (10.0, 30.0), strict=False):
        services.judgment_record(assessor=assessor, topic=topic, document=item.document, grade=1, seconds_total=seconds)
    client.force_login(assessor)
    with django_assert_max_num_queries(9):  # with the roles, read once for the navigation, and the answer counts
        page = client.get(reverse("judging:assignments")).content.decode()
    assert page.count("<progress") == 3
    remaining = sum(t.pool_items.count() for t in collection.topics.all()) - 2
    assert f"{remaining} documents left" in page
    assert "time spent 40 s" in page
    assert f"about {round(remaining * 20 / 60)} min left at your pace (20.0 s per document)" in page


def test_judging_page_opens_at_the_first_unjudged_document_in_the_same_queries_whatever_the_pool_size(
    client, campaign, django_assert_num_queries
):
    _, assessor = campaign
    client.force_login(assessor)
    small, large = make_collection(topics=1, documents=6, depth=2), make_collection(topics=1, documents=60, depth=50)
    counts = []
    for other in (small, large):
        topic = other.topics.get()
        services.assignment_create(assessor=assessor, topic=topic)
        first = selectors.judging_queue(assessor_id=assessor.id, topic=topic)[0]
        services.judgment_record(assessor=assessor, topic=topic, document=Document.objects.get(pk=first["id"]), grade=0)
        from django.db import connection
        from django.test.utils import CaptureQueriesContext

        with CaptureQueriesContext(connection) as queries:
            response = client.get(reverse("judging:judge", args=[topic.id]))
        counts.append(len(queries))
        config = config_of(response)
        assert config["start"] == 1 and config["queue"][0]["judged"] and not config["queue"][1]["judged"]
        assert response.context["document"].id == config["queue"][1]["id"]
    assert counts[0] == counts[1] <= 12  # with the roles (navigation), the next assigned topic, the undo history


def test_a_save_answers_json_in_bounded_queries_and_records_grade_note_and_time(
    client, campaign, django_assert_max_num_queries
):
    collection, assessor = campaign
    topic = collection.topics.first()
    document = topic.pool_items.first().document
    client.force_login(assessor)
    with django_assert_max_num_queries(20):  # 19 before the k-cap's item lock and label count
        response = save(client, topic, document, grade="2", note="on topic", seconds_total="12.5")
    assert response.json() == {"saved": True}
    judgment = Judgment.objects.get(assessor=assessor, document=document)
    assert (judgment.grade, judgment.note, judgment.seconds_spent) == (2, "on topic", 12.5)


def test_a_save_does_not_read_the_documents_text(client, campaign):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    collection, assessor = campaign
    topic = collection.topics.first()
    document = topic.pool_items.first().document
    Document.objects.filter(pk=document.pk).update(body="many words " * 5000)  # a web page's body
    client.force_login(assessor)
    with CaptureQueriesContext(connection) as queries:
        assert save(client, topic, document, grade="1").json() == {"saved": True}
    reads = [q["sql"] for q in queries.captured_queries if 'FROM "judging_document"' in q["sql"]]
    assert reads and not any('"body"' in sql for sql in reads)


def test_a_save_reads_the_collections_feature_settings_with_its_topic_not_one_query_each(client, campaign):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from judging import plugins

    collection, assessor = campaign
    topic = collection.topics.first()
    document = topic.pool_items.first().document
    client.force_login(assessor)
    with CaptureQueriesContext(connection) as queries:
        assert save(client, topic, document, grade="1").json() == {"saved": True}
    tables = [
        Collection._meta.get_field(relation).related_model._meta.db_table for relation in plugins.settings_relations
    ]
    alone = [q["sql"] for q in queries.captured_queries if any(f'FROM "{table}"' in q["sql"] for table in tables)]
    assert not alone


def test_a_retried_save_is_stored_once_and_its_time_counted_once(client, campaign):
    collection, assessor = campaign
    topic = collection.topics.first()
    document = topic.pool_items.first().document
    client.force_login(assessor)
    for _ in range(3):  # the response was lost twice; the page sent the same save again
        assert save(client, topic, document, grade="1", seconds_total="8").status_code == 200
    judgment = Judgment.objects.get(assessor=assessor, document=document)
    assert judgment.seconds_spent == 8
    assert JudgmentHistory.objects.filter(assessor=assessor, document=document).count() == 1


def test_undoing_a_first_judgment_deletes_it_and_keeps_the_history(client, campaign):
    collection, assessor = campaign
    topic = collection.topics.first()
    document = topic.pool_items.first().document
    client.force_login(assessor)
    save(client, topic, document, grade="3")
    assert save(client, topic, document, action="delete").status_code == 200
    assert not Judgment.objects.filter(assessor=assessor).exists()
    assert list(JudgmentHistory.objects.order_by("id").values_list("action", flat=True)) == ["created", "deleted"]


def test_cant_judge_is_stored_with_its_reason_and_no_grade(client, campaign):
    collection, assessor = campaign
    topic = collection.topics.first()
    document = topic.pool_items.first().document
    client.force_login(assessor)
    save(client, topic, document, grade="", cannot_judge_reason="Language I cannot read")
    judgment = Judgment.objects.get(assessor=assessor, document=document)
    assert (judgment.grade, judgment.cannot_judge_reason) == (None, "Language I cannot read")


def test_an_assessor_can_neither_open_nor_judge_another_assessors_topic(client, campaign):
    collection, _ = campaign
    topic = collection.topics.first()
    document = topic.pool_items.first().document
    client.force_login(make_user("assessor"))
    assert client.get(reverse("judging:judge", args=[topic.id])).status_code == 403
    assert client.get(reverse("judging:judge_document", args=[topic.id, document.id])).status_code == 403
    assert save(client, topic, document, grade="1").status_code == 403
    assert not Judgment.objects.exists()


def test_documents_outside_the_topics_pool_or_collection_cannot_be_judged_or_read(client, campaign):
    collection, assessor = campaign
    topic = collection.topics.first()
    pooled = set(topic.pool_items.values_list("document_id", flat=True))
    unpooled = collection.documents.exclude(id__in=pooled).first()
    foreign = make_collection().documents.first()
    client.force_login(assessor)
    assert save(client, topic, unpooled, grade="1").status_code == 403
    assert save(client, topic, foreign, grade="1").status_code == 404
    assert client.get(reverse("judging:judge_document", args=[topic.id, unpooled.id])).status_code == 404
    assert client.get(reverse("judging:judge_document", args=[topic.id, foreign.id])).status_code == 404
    assert not Judgment.objects.exists()


def test_a_grade_outside_the_scale_is_a_400_with_the_reason(client, campaign):
    collection, assessor = campaign
    topic = collection.topics.first()
    client.force_login(assessor)
    response = save(client, topic, topic.pool_items.first().document, grade="7")
    assert response.status_code == 400
    assert "outside this collection's scale" in response.json()["error"]["message"]


def test_the_page_never_shows_other_assessors_labels_or_which_runs_retrieved_the_document(client, campaign):
    collection, assessor = campaign
    topic = collection.topics.first()
    other = make_user("assessor")
    services.assignment_create(assessor=other, topic=topic)
    for item in topic.pool_items.all():
        services.judgment_record(assessor=other, topic=topic, document=item.document, grade=3, note="OTHER-NOTE")
    client.force_login(assessor)
    page = client.get(reverse("judging:judge", args=[topic.id])).content.decode()
    assert "OTHER-NOTE" not in page and "run0" not in page and "best rank" not in page
    assert all(
        not entry["judged"] for entry in config_of(client.get(reverse("judging:judge", args=[topic.id])))["queue"]
    )


def test_with_blindness_off_the_page_says_which_runs_retrieved_the_document(client, campaign):
    collection, assessor = campaign
    services.collection_settings_update(collection=collection, blind=False)
    client.force_login(assessor)
    page = client.get(reverse("judging:judge", args=[collection.topics.first().id])).content.decode()
    assert "best rank" in page


def test_document_markup_is_shown_as_text_and_query_terms_are_marked(client, campaign):
    collection, assessor = campaign
    topic = collection.topics.first()
    document = Document.objects.get(pk=selectors.judging_queue(assessor_id=assessor.id, topic=topic)[0]["id"])
    document.body = 'Topic <script>alert("x")</script><img src=x onerror="alert(1)"> &amp; more on topics'
    document.save()
    client.force_login(assessor)
    page = client.get(reverse("judging:judge_document", args=[topic.id, document.id])).content.decode()
    assert "<script>" not in page and "<img" not in page and "onerror" not in page
    assert "<mark>Topic</mark>" in page and "topics" in page and "<mark>topics</mark>" not in page


def test_each_assessor_gets_an_own_order_within_priority_bands():
    topic = make_collection(topics=1, documents=40, runs=1, depth=30).topics.get()
    priority = [i.document_id for i in topic.pool_items.order_by("-priority", "id")]
    orders = [[e["id"] for e in selectors.judging_queue(assessor_id=a, topic=topic)] for a in (1, 2)]
    assert orders[0] != orders[1] and orders[0] != priority
    for order in orders:
        for start in range(0, 30, selectors.SHUFFLE_BAND):
            assert set(order[start : start + 10]) == set(priority[start : start + 10])
    assert orders[0] == [e["id"] for e in selectors.judging_queue(assessor_id=1, topic=topic)]  # stable on reload
    services.collection_settings_update(collection=topic.collection, shuffle_within_priority=False)
    topic.refresh_from_db()
    assert [e["id"] for e in selectors.judging_queue(assessor_id=1, topic=topic)] == priority


def test_guidelines_are_rendered_from_markdown_without_anything_executable(client, campaign):
    collection, assessor = campaign
    collection.guidelines = "**Relevant** means *on topic*.\n\n<script>alert(1)</script>[x](javascript:alert(1))"
    collection.save()
    client.force_login(assessor)
    for url in (reverse("judging:assignments"), reverse("judging:judge", args=[collection.topics.first().id])):
        page = client.get(url).content.decode()
        assert "<strong>Relevant</strong> means <em>on topic</em>" in page
        assert "alert(1)</script>" not in page and "javascript:" not in page
