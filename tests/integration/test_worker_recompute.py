"""The judgment -> metrics pipeline with a real Celery worker, PostgreSQL and Redis."""

from __future__ import annotations

import time

import pytest
from celery.contrib.testing.worker import start_worker
from django.urls import reverse

from config.celery import app
from evaluation.models import TopicState
from judging import selectors, services
from measures import PreparedQrels, PreparedRun, evaluate
from tests.factories import make_collection, make_user, stored_values

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]


def wait_until(condition, timeout=20.0, interval=0.05):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(interval)
    return False


def fresh(topic_id):
    state = TopicState.objects.filter(topic_id=topic_id).first()
    return state is not None and not state.dirty and state.computed_generation == state.generation


@pytest.fixture
def worker():
    app.control.purge()
    with start_worker(app, pool="solo", perform_ping_check=False, shutdown_timeout=10):
        yield


def test_a_judgment_through_the_view_updates_stored_metrics_through_the_worker(client, worker):
    collection = make_collection(max_grade=3, topics=2, documents=8, runs=3, depth=5)
    assessor = make_user("assessor")
    topic = collection.topics.get(number="1")
    services.assignment_create(assessor=assessor, topic=topic)
    client.force_login(assessor)
    for item in topic.pool_items.order_by("-priority")[:4]:
        response = client.post(reverse("judging:judge_save", args=[topic.id, item.document_id]), {"grade": "2"})
        assert response.status_code == 302
    assert wait_until(lambda: fresh(topic.id)), "the worker did not bring the topic up to date"

    labels = {d: max(g.values()) for d, g in selectors.topic_judgments(topic_id=topic.id).items()}
    rankings = selectors.topic_rankings(topic_id=topic.id)
    expected = evaluate(
        PreparedQrels.from_mapping({topic.id: labels}),
        [PreparedRun.from_rankings(str(r), {topic.id: d}) for r, d in rankings.items()],
        ["AP"],
        relevance_level=collection.relevance_threshold,
    )
    values = stored_values(collection, ["AP"])
    for run in collection.runs.all():
        stored = values[(run.id, topic.id, "AP")]
        assert stored == pytest.approx(expected.aggregate(str(run.id), "AP"), abs=1e-12)


def test_an_assignment_through_the_answer_page_updates_the_answer_scores_through_the_worker(client, worker):
    from evaluation.models import AnswerTopicState
    from evaluation.nuggets.models import AnswerScores
    from tests.rag_campaign import rag_campaign

    rag = rag_campaign()
    answer = rag.answer("rag-a", "1")
    client.force_login(rag.alice)
    for index, label in enumerate(["support", "partial_support", "not_support"]):
        saved = client.post(
            reverse("judging:answer_assign", args=[answer.id]),
            {"nugget": rag.nuggets["1", index].id, "label": label},
            headers={"Accept": "application/json"},
        )
        assert saved.json() == {"saved": True}

    def answer_fresh():
        state = AnswerTopicState.objects.filter(topic_id=answer.topic_id).first()
        return state is not None and state.fresh and AnswerScores.objects.filter(answer=answer).exists()

    assert wait_until(answer_fresh), "the worker did not bring the answer scores up to date"
    scores = AnswerScores.objects.get(answer=answer)
    # capital (vital, support), size (okay, partial), history (vital, no support)
    assert (scores.strict_vital_score, scores.vital_score, scores.all_score) == (0.5, 0.5, 1.5 / 3)
