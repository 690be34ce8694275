"""evaluation's listeners to judging's announcements (`judging.signals`), connected in `EvaluationConfig.ready()`:
each is one call of a staleness service, run inside the writer's transaction."""

from __future__ import annotations

from evaluation.online import services as search_logs
from evaluation.selectors import EVALUATION_SETTINGS
from evaluation.services import staleness


def labels_changed(sender, *, topic_ids, collection_id=None, **kwargs) -> None:
    staleness.topics_changed(topic_ids=topic_ids, collection_id=collection_id)


def rankings_changed(sender, *, topic_ids, collection_id=None, **kwargs) -> None:
    staleness.topics_changed(topic_ids=topic_ids, collection_id=collection_id, qrels_changed=False)


def collection_changed(sender, *, collection_id, changed, **kwargs) -> None:
    if "topics" in changed or changed & set(EVALUATION_SETTINGS):
        staleness.collection_changed(collection_id=collection_id)
    if "label_sources" in changed:
        staleness.collection_answers_changed(collection_id=collection_id)


def answers_changed(sender, *, topic_ids, collection_id=None, **kwargs) -> None:
    staleness.answer_topics_changed(topic_ids=topic_ids)


def collection_deleting(sender, *, collection_id, **kwargs) -> None:
    search_logs.search_logs_delete(collection_id=collection_id)
