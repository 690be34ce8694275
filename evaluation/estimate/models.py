"""The topics drawn at random for people to judge: the table of the estimate feature. Prediction-powered intervals
hold only when the people's topics are a random sample; a draw is how the product knows they are. Imported by the
evaluation app's config (`evaluation.apps`), so it is its model and its migrations'."""

from __future__ import annotations

from django.conf import settings
from django.db import models

from judging.models import Collection, Topic


class TopicDraw(models.Model):
    """One topic drawn, uniformly at random among those people had not judged, for people to judge. Written only by
    `evaluation.estimate.services.topics_draw`."""

    collection = models.ForeignKey(Collection, on_delete=models.CASCADE, related_name="+")
    topic = models.OneToOneField(Topic, on_delete=models.CASCADE, related_name="+")
    drawn_at = models.DateTimeField(auto_now_add=True)
    drawn_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+")

    def __str__(self) -> str:
        return f"topic {self.topic_id} drawn for collection {self.collection_id}"
