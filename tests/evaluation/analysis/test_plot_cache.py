"""A plot is drawn once per state of the data it shows: the same plot of the same fresh results comes from the
cache, a judgment (or any change) makes the next request draw it again, and nothing stale is ever kept."""

from __future__ import annotations

import pytest

from evaluation import services as evaluation_services
from evaluation.analysis.core import plots
from judging import services
from tests.factories import make_collection, make_user

pytestmark = pytest.mark.django_db


def test_a_plot_is_drawn_once_per_state_of_its_data(client, monkeypatch):
    collection = make_collection(topics=2, runs=2)
    topic = collection.topics.order_by("id").first()
    person = make_user()
    services.assignment_create(assessor=person, topic=topic)
    items = [i.document for i in topic.pool_items.order_by("id")]
    services.judgment_record(assessor=person, topic=topic, document=items[0], grade=2)
    evaluation_services.collection_recompute(collection_id=collection.id)
    drawn = []
    render = plots.render
    monkeypatch.setattr(plots, "render", lambda figure, fmt: (drawn.append(fmt), render(figure, fmt))[1])
    client.force_login(make_user("researcher"))
    url = f"/results/{collection.id}/plots/precision-recall.svg?runs=run0&runs=run1"
    first, second = client.get(url), client.get(url)
    assert first.status_code == second.status_code == 200 and first.content == second.content
    assert len(drawn) == 1
    services.judgment_record(assessor=person, topic=topic, document=items[1], grade=3)  # stale now: drawn, not kept
    client.get(url), client.get(url)
    assert len(drawn) == 3
    evaluation_services.collection_recompute(collection_id=collection.id)
    client.get(url), client.get(url)
    assert len(drawn) == 4  # the new state, drawn once
