"""A RAG run's answers (each a topic's sentences with citations into its references, which are the collection's
documents) and the support of each (sentence, cited segment) judged. Defined in this feature package and imported by
`judging.models`, so they are the judging app's models. Written only through `judging.rag.services.answers`."""

from __future__ import annotations

from django.conf import settings
from django.db import models


class Answer(models.Model):
    """One run's answer to one topic. Its references are also the run's ranking of the topic (in their order), so
    the run's document measures are computed over them like any run's."""

    run = models.ForeignKey("judging.Run", on_delete=models.CASCADE, related_name="answers")
    topic = models.ForeignKey("judging.Topic", on_delete=models.CASCADE, related_name="answers")
    references = models.JSONField(default=list, help_text="Document ids (the segments), in the run's order.")
    sentences = models.JSONField(default=list, help_text='[{"text", "citations": [positions in references]}]')
    words = models.PositiveIntegerField(default=0, help_text="Words after NFKC normalisation, split on whitespace.")
    origin = models.JSONField(default=dict, help_text="{file, line, format} and the 2025 format's metadata.")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["topic", "run"]
        constraints = [models.UniqueConstraint(fields=["run", "topic"], name="answer_unique_per_run_topic")]

    def __str__(self) -> str:
        return f"{self.run_id} answers {self.topic_id}"


class SupportLabel(models.TextChoices):
    FULL = "full", "Full support"
    PARTIAL = "partial", "Partial support"
    NONE = "none", "No support"


class SupportJudgment(models.Model):
    """One assessor's (or machine's) judgment of whether a cited segment supports a sentence of an answer."""

    assessor = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    answer = models.ForeignKey(Answer, on_delete=models.CASCADE, related_name="support_judgments")
    sentence = models.PositiveSmallIntegerField()
    document = models.ForeignKey("judging.Document", on_delete=models.CASCADE, related_name="+")
    label = models.CharField(max_length=8, choices=SupportLabel.choices)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["assessor", "answer", "sentence", "document"], name="support_unique_per_assessor"
            )
        ]

    def __str__(self) -> str:
        return f"{self.assessor_id} {self.answer_id}[{self.sentence}]/{self.document_id} = {self.label}"
