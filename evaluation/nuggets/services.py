"""Recomputing a topic's answer scores: each answer's four nugget scores and its support precision and recall from
the labels that count, and the people's agreement on the topic's assignments. The staleness protocol of the
document measures (`evaluation.services.recompute`), on the topic's answer-state row and its own lock namespace."""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone

from evaluation.models import AnswerTopicState
from evaluation.nuggets import selectors
from evaluation.nuggets.core import support_scores
from evaluation.nuggets.models import AnswerScores
from evaluation.services.recompute import _exclusively

ANSWERS = 3  # the lock namespace (TOPIC = 1 and COLLECTION = 2 are the document measures')

SCORE_FIELDS = [
    "strict_vital_score", "strict_all_score", "vital_score", "all_score", "nuggets", "assigned",
    "support_precision", "support_recall", "support_judged", "support_cited", "generation",
]  # fmt: skip


def answer_topic_recompute(*, topic_id: int) -> bool:
    """Brings one topic's answer scores and assignment agreement up to date. Idempotent; returns False when there
    was nothing to do (already fresh, or another worker holds the topic)."""
    return _exclusively(ANSWERS, AnswerTopicState, topic_id, lambda generation: _topic(topic_id, generation))


def answer_topics_recompute(*, topic_ids: list[int]) -> int:
    return sum(bool(answer_topic_recompute(topic_id=topic_id)) for topic_id in topic_ids)


def _topic(topic_id: int, generation: int) -> bool:
    inputs = selectors.answer_topic_inputs(topic_id=topic_id)
    rows = []
    for answer in inputs.answers:
        scores = inputs.scores(answer.pk)
        support = support_scores(inputs.support_of(answer))
        rows.append(
            AnswerScores(
                answer_id=answer.pk,
                topic_id=topic_id,
                **(
                    scores.as_dict()
                    if scores
                    else dict.fromkeys(("strict_vital_score", "strict_all_score", "vital_score", "all_score"))
                ),
                nuggets=len(inputs.nuggets),
                assigned=inputs.assigned(answer.pk),
                support_precision=support.precision,
                support_recall=support.recall,
                support_judged=support.judged,
                support_cited=support.cited,
                generation=generation,
            )
        )
    return _store(topic_id, generation, rows, inputs.agreement())


@transaction.atomic
def _store(topic_id: int, generation: int, rows: list[AnswerScores], agreement: dict) -> bool:
    """Stores the scores for `generation` unless a newer generation's are (then nothing); returns whether the row
    was re-dirtied meanwhile (another round is due)."""
    state = AnswerTopicState.objects.select_for_update().get(pk=topic_id)
    if state.computed_generation > generation:
        return state.dirty
    AnswerScores.objects.filter(topic_id=topic_id).exclude(answer_id__in=[r.answer_id for r in rows]).delete()
    AnswerScores.objects.bulk_create(rows, update_conflicts=True, unique_fields=["answer"], update_fields=SCORE_FIELDS)
    AnswerTopicState.objects.filter(pk=topic_id).update(
        computed_generation=generation, computed_at=timezone.now(), agreement=agreement
    )
    return state.dirty
