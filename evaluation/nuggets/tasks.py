"""Celery tasks of the nugget scoring feature: recompute a topic's answer scores. Names are pinned (those
they had in `evaluation.tasks`); retried as every recompute is."""

from celery import shared_task

from config.celery import RECOMPUTE_RETRY as RETRIED
from evaluation.nuggets import services as answer_services


@shared_task(name="evaluation.tasks.recompute_answer_topic", **RETRIED)
def recompute_answer_topic(topic_id: int) -> bool:
    return answer_services.answer_topic_recompute(topic_id=topic_id)


@shared_task(name="evaluation.tasks.recompute_answer_topics", **RETRIED)
def recompute_answer_topics(topic_ids: list[int]) -> int:
    return answer_services.answer_topics_recompute(topic_ids=topic_ids)
