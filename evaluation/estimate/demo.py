"""The demo's random sample: a few topics drawn at random and judged whole by an assessor, so that the leaderboard
shows the machine judge's values corrected by people's, with valid intervals, from the first command."""

from __future__ import annotations

import random

from django.contrib.auth import get_user_model
from django.db import transaction

from evaluation.estimate.services import topics_draw
from judging import services
from judging.demo import simulated_grade
from judging.models import Collection, PoolItem
from judging.sources import selectors as sources

DEMO_DRAWN = 4
DEMO_ASSESSOR = "alice"


@transaction.atomic
def demo_topics_drawn(*, collection: Collection) -> list:
    """Draws DEMO_DRAWN topics (seeded, so every demo is the same) and has the demo's assessor judge what is left of
    their pools."""
    assessor = get_user_model().objects.get(username=DEMO_ASSESSOR)
    drawn = topics_draw(collection=collection, count=DEMO_DRAWN, rng=random.Random(5))
    rng = random.Random(7)
    for topic in drawn:
        mine = set(
            sources.own_labels(assessor_id=assessor.id, topic_ids=[topic.id]).values_list("document_id", flat=True)
        )
        for item in PoolItem.objects.filter(topic=topic).select_related("document").order_by("priority", "id"):
            if item.document_id not in mine:
                grade = simulated_grade(topic.title, item.document, rng, 0.1)
                services.judgment_record(assessor=assessor, topic=topic, document=item.document, grade=grade,
                                         seconds_spent=rng.uniform(4, 30))  # fmt: skip
    return drawn
