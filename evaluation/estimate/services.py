"""Writes of the estimate feature: topics drawn at random for people to judge. Prediction-powered intervals need the
people's topics to be a random sample of all of them; drawing them here is what makes an interval valid."""

from __future__ import annotations

import random

from django.core.exceptions import ValidationError
from django.db import transaction

from evaluation.estimate.models import TopicDraw
from evaluation.estimate.selectors import drawn_topics, people_topics
from judging.models import Collection, Topic

MAX_DRAW = 500


@transaction.atomic
def topics_draw(*, collection: Collection, count: int, drawn_by=None, rng: random.Random | None = None) -> list[Topic]:
    """Draws `count` topics uniformly at random among those people have not judged whole and that were not drawn
    before, and records them (fewer when fewer are left). Refuses a count below 1 or above MAX_DRAW, naming it."""
    if not 1 <= count <= MAX_DRAW:
        raise ValidationError({"count": f"draw between 1 and {MAX_DRAW} topics, not {count}"})
    Collection.objects.select_for_update().filter(pk=collection.pk).first()  # one draw at a time per collection
    taken = drawn_topics(collection=collection) | people_topics(collection=collection)
    candidates = sorted(set(Topic.objects.filter(collection=collection).values_list("id", flat=True)) - taken)
    chosen = (rng or random.SystemRandom()).sample(candidates, min(count, len(candidates)))
    TopicDraw.objects.bulk_create(TopicDraw(collection=collection, topic_id=t, drawn_by=drawn_by) for t in chosen)
    return list(Topic.objects.filter(pk__in=chosen).order_by("id"))
