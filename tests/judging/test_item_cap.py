"""The cap of k judgments per pool item: enforced by the write service inside its transaction, reflected in queues."""

from __future__ import annotations

import threading

import pytest
from django.db import close_old_connections

from judging import selectors, services
from judging.models import Judgment
from tests.factories import make_collection, make_user


def _topic_with_assessors(n_assessors, k):
    collection = make_collection(topics=1, documents=4, runs=1, depth=3, assessors_per_item=k)
    topic = collection.topics.get()
    people = [make_user("assessor") for _ in range(n_assessors)]
    for person in people:
        services.assignment_create(assessor=person, topic=topic)
    return topic, people


def _first_document(topic):
    return topic.pool_items.order_by("-priority", "id").first().document


@pytest.mark.django_db
def test_a_third_assessor_cannot_judge_an_item_that_already_has_its_two_judgments():
    topic, (a, b, c) = _topic_with_assessors(3, k=2)
    document = _first_document(topic)
    services.judgment_record(assessor=a, topic=topic, document=document, grade=1)
    services.judgment_record(assessor=b, topic=topic, document=document, grade=0)
    with pytest.raises(services.ItemFull, match="already has its 2 judgment"):
        services.judgment_record(assessor=c, topic=topic, document=document, grade=1)
    assert Judgment.objects.filter(topic=topic, document=document).count() == 2


@pytest.mark.django_db
def test_an_assessor_may_always_change_their_own_judgment_of_a_full_item():
    topic, (a, b) = _topic_with_assessors(2, k=1)
    document = _first_document(topic)
    services.judgment_record(assessor=a, topic=topic, document=document, grade=1)
    with pytest.raises(services.ItemFull):
        services.judgment_record(assessor=b, topic=topic, document=document, grade=1)
    services.judgment_record(assessor=a, topic=topic, document=document, grade=0)
    assert Judgment.objects.get(assessor=a, document=document).grade == 0


@pytest.mark.django_db
def test_cannot_judge_does_not_use_up_a_slot():
    topic, (a, b) = _topic_with_assessors(2, k=1)
    document = _first_document(topic)
    services.judgment_record(assessor=a, topic=topic, document=document, grade=None, cannot_judge_reason="broken")
    services.judgment_record(assessor=b, topic=topic, document=document, grade=1)
    assert Judgment.objects.filter(document=document, grade__isnull=False).count() == 1


@pytest.mark.django_db
def test_full_items_leave_other_assessors_queues_and_their_totals_but_not_the_judges():
    topic, (a, b) = _topic_with_assessors(2, k=1)
    document = _first_document(topic)
    services.judgment_record(assessor=a, topic=topic, document=document, grade=1)
    queue_a = [item["id"] for item in selectors.judging_queue(assessor_id=a.id, topic=topic)]
    queue_b = [item["id"] for item in selectors.judging_queue(assessor_id=b.id, topic=topic)]
    assert document.id in queue_a and document.id not in queue_b
    assert len(queue_b) == len(queue_a) - 1
    (assignment_b,) = selectors.assignments_for_assessor(assessor_id=b.id)
    assert assignment_b.total == len(queue_b)


@pytest.mark.django_db
def test_the_judging_page_answers_409_for_a_full_item(client):
    topic, (a, b) = _topic_with_assessors(2, k=1)
    document = _first_document(topic)
    services.judgment_record(assessor=a, topic=topic, document=document, grade=1)
    client.force_login(b)
    response = client.post(f"/judging/judge/{topic.id}/{document.id}/", {"grade": "1"}, HTTP_ACCEPT="application/json")
    assert response.status_code == 409
    assert "already has its 1 judgment" in response.json()["error"]["message"]


@pytest.mark.services
@pytest.mark.django_db(transaction=True)
def test_two_assessors_racing_for_the_last_slot_cannot_both_get_it():
    topic, (a, b, c) = _topic_with_assessors(3, k=2)
    document = _first_document(topic)
    services.judgment_record(assessor=a, topic=topic, document=document, grade=1)
    barrier, outcomes = threading.Barrier(2), {}

    def judge(person):
        try:
            barrier.wait()
            services.judgment_record(assessor=person, topic=topic, document=document, grade=1)
            outcomes[person.pk] = "saved"
        except services.ItemFull:
            outcomes[person.pk] = "full"
        finally:
            close_old_connections()

    for _ in range(5):  # several rounds, so an unlucky interleaving would show
        Judgment.objects.filter(document=document).exclude(assessor=a).delete()
        outcomes.clear()
        threads = [threading.Thread(target=judge, args=(person,)) for person in (b, c)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert sorted(outcomes.values()) == ["full", "saved"]
        assert Judgment.objects.filter(topic=topic, document=document).count() == 2


@pytest.mark.django_db
def test_a_first_cant_judge_on_a_full_item_gives_no_right_to_a_grade_later():
    topic, (a, b) = _topic_with_assessors(2, k=1)
    document = _first_document(topic)
    services.judgment_record(assessor=a, topic=topic, document=document, grade=1)
    services.judgment_record(
        assessor=b, topic=topic, document=document, grade=None, cannot_judge_reason="Topic is unclear"
    )  # takes no slot
    with pytest.raises(services.ItemFull):
        services.judgment_record(assessor=b, topic=topic, document=document, grade=2)
    graded = Judgment.objects.filter(topic=topic, document=document, grade__isnull=False)
    assert list(graded.values_list("assessor_id", flat=True)) == [a.id]
