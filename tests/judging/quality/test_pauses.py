"""Pausing an assessor end to end: below the collection's threshold their next save is refused with a kind message
and nothing is lost, the admin sees why and resumes them, and "discard since" takes their labels out through the
judgments write path, so the consensus and the leaderboard go stale and fresh again."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.core.exceptions import ValidationError
from django.utils import timezone

from evaluation import selectors as evaluation_selectors
from evaluation import services as evaluation_services
from judging import services
from judging.models import Judgment, JudgmentHistory, PoolItem, Topic
from judging.quality.models import AssessorPause
from judging.quality.services import pauses as quality
from tests.factories import make_collection, make_user

pytestmark = pytest.mark.django_db


@pytest.fixture
def campaign():
    collection = make_collection(max_grade=3, topics=1, documents=12, runs=2, depth=10, assessors_per_item=2,
                                 pause_below=0.5, pause_window=5)  # fmt: skip
    topic = Topic.objects.get(collection=collection)
    ann, bob, admin = make_user("assessor"), make_user("assessor"), make_user("admin")
    for person in (ann, bob):
        services.assignment_create(assessor=person, topic=topic)
    items = [item.document for item in PoolItem.objects.filter(topic=topic).order_by("id")]
    for document in items[:6]:
        services.judgment_record(assessor=ann, topic=topic, document=document, grade=0)
    return collection, topic, ann, bob, admin, items


def _save(client, topic, document, grade):
    return client.post(f"/judging/judge/{topic.id}/{document.id}/", {"grade": grade, "seconds_total": "4"},
                       HTTP_ACCEPT="application/json")  # fmt: skip


def test_an_assessor_below_the_threshold_is_paused_kindly_and_loses_nothing(campaign, client):
    _, topic, _, bob, _, items = campaign
    client.force_login(bob)
    answers = [_save(client, topic, document, 3).json() for document in items[:5]]  # ann said 0 to each
    assert "paused" not in answers[3] and "talk to the campaign's admin" in answers[4]["paused"]
    assert Judgment.objects.filter(assessor=bob).count() == 5  # the fifth, which paused them, is kept
    refused = _save(client, topic, items[5], 3)
    assert refused.status_code == 403 and "paused" in refused.json()["error"]["message"]
    assert Judgment.objects.filter(assessor=bob).count() == 5
    page = client.get(f"/judging/judge/{topic.id}/").content.decode()
    assert 'id="paused"' in page and "Nothing you judged is lost" in page
    pause = AssessorPause.objects.get(assessor=bob)
    assert "0 of their last 5" in pause.reason


def test_a_paused_assessor_cannot_delete_a_label_through_the_page_or_the_api(campaign, client):
    _, topic, _, bob, _, items = campaign
    client.force_login(bob)
    for document in items[:5]:
        _save(client, topic, document, 3)  # the fifth pauses bob
    undo = client.post(f"/judging/judge/{topic.id}/{items[4].id}/",
                       {"action": "delete"}, HTTP_ACCEPT="application/json")  # fmt: skip
    assert undo.status_code == 403 and "paused" in undo.json()["error"]["message"]
    with pytest.raises(quality.AssessorPaused):
        services.judgment_delete(assessor=bob, topic=topic, document=items[0])
    assert Judgment.objects.filter(assessor=bob).count() == 5


def test_the_admin_sees_why_resumes_and_discards_since_and_the_results_follow(campaign, client):
    collection, topic, _, bob, admin, items = campaign
    for document in items[:5]:  # ann said 0: with ties going to the higher grade, bob's 3 make the consensus
        services.judgment_record(assessor=bob, topic=topic, document=document, grade=3)
    pause = quality.assessor_pause_check(collection=collection, assessor=bob)
    assert pause is not None and quality.assessor_pause_check(collection=collection, assessor=bob) == pause
    evaluation_services.collection_recompute(collection_id=collection.id)
    before = evaluation_selectors.consensus_qrels(collection=collection)
    client.force_login(admin)
    partial = client.get(f"/results/{collection.id}/reliability/", HTTP_HX_REQUEST="true").content.decode()
    assert f'data-pause="{bob.username}"' in partial and "0 of their last 5" in partial
    assert client.post(f"/judging/pauses/{pause.id}/resume/").status_code == 302
    assert quality.assessor_pause_check(collection=collection, assessor=bob) is None  # weighed afresh after resume
    services.judgment_record(assessor=bob, topic=topic, document=items[6], grade=1)
    since = pause.window_start.strftime("%Y-%m-%dT%H:%M:%S.%f")
    client.post(f"/judging/collections/{collection.id}/assessors/{bob.id}/discard/", {"since": since})
    assert not Judgment.objects.filter(assessor=bob).exists()
    deleted = JudgmentHistory.objects.filter(assessor=bob, action="deleted")
    assert deleted.count() == 6 and {h.changed_by_id for h in deleted} == {admin.id}
    assert not evaluation_selectors.collection_freshness(collection=collection)["fresh"]
    evaluation_services.collection_recompute(collection_id=collection.id)
    assert evaluation_selectors.collection_freshness(collection=collection)["fresh"]
    after = evaluation_selectors.consensus_qrels(collection=collection)
    assert before[topic.id][items[0].id] == 3 and set(after[topic.id].values()) == {0}  # ann's labels alone


def test_advisory_assessors_and_collections_without_a_threshold_never_pause(campaign):
    collection, topic, _, bob, _, items = campaign
    services.collection_settings_update(collection=collection, pause_below=None)
    collection.refresh_from_db()
    for document in items[:5]:
        services.judgment_record(assessor=bob, topic=topic, document=document, grade=0)
    assert quality.assessor_pause_check(collection=collection, assessor=bob) is None
    services.collection_settings_update(collection=collection, pause_below=0.5, advisory_assessors=[bob.pk])
    collection.refresh_from_db()
    assert quality.assessor_pause_check(collection=collection, assessor=bob) is None
    with pytest.raises(ValidationError, match="moment in the past"):
        tomorrow = timezone.now() + timedelta(days=1)
        quality.assessor_labels_discard(collection=collection, assessor=bob, since=tomorrow, by=bob)
