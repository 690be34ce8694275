"""Nugget scores of RAG answers and their staleness: the tables of the nugget scoring feature. Imported by the
evaluation app's config (`evaluation.apps`), so they are its models and its migrations'."""

from __future__ import annotations

from django.db import models

from judging.models import Topic


class AnswerScores(models.Model):
    """One answer's stored scores from the labels that count: nuggetizer's four (null while the answer has no
    counted assignment: not in its run's mean), and support precision and recall (null until a citation is
    judged)."""

    answer = models.OneToOneField("judging.Answer", on_delete=models.CASCADE, primary_key=True, related_name="scores")
    topic = models.ForeignKey(Topic, on_delete=models.CASCADE, related_name="+")
    strict_vital_score = models.FloatField(null=True)
    strict_all_score = models.FloatField(null=True)
    vital_score = models.FloatField(null=True)
    all_score = models.FloatField(null=True)
    nuggets = models.PositiveIntegerField(default=0)
    assigned = models.PositiveIntegerField(default=0, help_text="Nuggets with a counted label on this answer.")
    support_precision = models.FloatField(null=True)
    support_recall = models.FloatField(null=True)
    support_judged = models.PositiveIntegerField(default=0)
    support_cited = models.PositiveIntegerField(default=0)
    generation = models.PositiveBigIntegerField(default=0)
    computed_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"scores of answer {self.answer_id}"
