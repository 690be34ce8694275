"""The one write path for judgments: validation, constraints, idempotence, history, staleness."""

from __future__ import annotations

import pytest
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import IntegrityError, transaction

from evaluation.models import CollectionState, TopicState
from evaluation.services import collection_recompute
from judging import services
from judging.models import Judgment, JudgmentHistory
from tests.factories import make_collection, make_user

pytestmark = pytest.mark.django_db


@pytest.fixture
def setting():
    collection = make_collection(max_grade=3)
    assessor = make_user()
    topic = collection.topics.get(number="1")
    services.assignment_create(assessor=assessor, topic=topic)
    document = collection.documents.get(docno="d1")
    collection_recompute(collection_id=collection.id)  # start from clean topics, as after any recompute
    return collection, assessor, topic, document


def test_recording_same_pair_twice_updates_the_grade_without_duplicating(setting):
    _, assessor, topic, document = setting
    services.judgment_record(assessor=assessor, topic=topic, document=document, grade=1, seconds_spent=3)
    services.judgment_record(assessor=assessor, topic=topic, document=document, grade=3, seconds_spent=2)
    judgment = Judgment.objects.get()
    assert (judgment.grade, judgment.seconds_spent) == (3, 5)
    assert list(JudgmentHistory.objects.order_by("id").values_list("old_grade", "new_grade", "action")) == [
        (None, 1, "created"),
        (1, 3, "changed"),
    ]


def test_repeating_the_same_judgment_is_idempotent(setting):
    _, assessor, topic, document = setting
    for _ in range(3):
        services.judgment_record(assessor=assessor, topic=topic, document=document, grade=2)
    assert Judgment.objects.count() == 1
    assert JudgmentHistory.objects.count() == 1


@pytest.mark.parametrize("grade", [-1, 4, 9, True, "2"])
def test_grade_outside_the_scale_is_rejected_with_a_clear_error(setting, grade):
    _, assessor, topic, document = setting
    with pytest.raises(ValidationError, match=r"outside this collection's scale 0\.\.3"):
        services.judgment_record(assessor=assessor, topic=topic, document=document, grade=grade)
    assert Judgment.objects.count() == 0


def test_document_of_another_collection_is_rejected(setting):
    _, assessor, topic, _ = setting
    foreign = make_collection().documents.first()
    with pytest.raises(ValidationError, match="belongs to another collection"):
        services.judgment_record(assessor=assessor, topic=topic, document=foreign, grade=1)


def test_unassigned_assessor_cannot_judge(setting):
    _, _, topic, document = setting
    with pytest.raises(PermissionDenied):
        services.judgment_record(assessor=make_user(), topic=topic, document=document, grade=1)


def test_cannot_judge_needs_a_reason(setting):
    _, assessor, topic, document = setting
    with pytest.raises(ValidationError, match="reason"):
        services.judgment_record(assessor=assessor, topic=topic, document=document, grade=None)
    judgment = services.judgment_record(
        assessor=assessor, topic=topic, document=document, grade=None, cannot_judge_reason="document does not load"
    )
    assert judgment.grade is None and judgment.cannot_judge_reason == "document does not load"


def test_database_rejects_a_duplicate_judgment_behind_the_services_back(setting):
    _, assessor, topic, document = setting
    Judgment.objects.create(assessor=assessor, topic=topic, document=document, grade=1)
    with pytest.raises(IntegrityError), transaction.atomic():
        Judgment.objects.create(assessor=assessor, topic=topic, document=document, grade=2)


@pytest.mark.parametrize("grade", [-1, 6])
def test_database_rejects_a_grade_outside_0_to_5(setting, grade):
    _, assessor, topic, document = setting
    with pytest.raises(IntegrityError), transaction.atomic():
        Judgment.objects.create(assessor=assessor, topic=topic, document=document, grade=grade)


def test_database_rejects_a_threshold_above_the_scale():
    from judging.models import Collection

    with pytest.raises(IntegrityError), transaction.atomic():
        Collection.objects.create(name="bad", max_grade=1, relevance_threshold=2)


def test_a_changed_grade_marks_the_topic_stale_and_recomputes_after_commit(setting, django_capture_on_commit_callbacks):
    _, assessor, topic, document = setting
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        services.judgment_record(assessor=assessor, topic=topic, document=document, grade=2)
    assert len(callbacks) == 2  # the topic's recompute, and the collection-wide agreement's
    state = TopicState.objects.get(topic=topic)
    assert not state.dirty and state.computed_generation == state.generation
    assert topic.measure_values.filter(measure="AP").exists()
    assert CollectionState.objects.get(collection=topic.collection).fresh


def test_many_changes_before_commit_enqueue_one_recompute(setting, django_capture_on_commit_callbacks):
    _, assessor, topic, _ = setting
    with django_capture_on_commit_callbacks(execute=False) as callbacks, transaction.atomic():
        for document in [item.document for item in topic.pool_items.select_related("document")[:4]]:
            services.judgment_record(assessor=assessor, topic=topic, document=document, grade=1)
    assert len(callbacks) == 2  # one recompute of the topic, one of the collection-wide agreement
    assert TopicState.objects.get(topic=topic).generation >= 4


def test_deleting_a_judgment_keeps_its_history(setting):
    _, assessor, topic, document = setting
    services.judgment_record(assessor=assessor, topic=topic, document=document, grade=2)
    assert services.judgment_delete(assessor=assessor, topic=topic, document=document)
    assert Judgment.objects.count() == 0
    assert JudgmentHistory.objects.filter(action="deleted", old_grade=2).exists()


def test_a_judgment_created_by_another_request_meanwhile_is_updated_not_duplicated(setting, monkeypatch):
    from config import sql

    _, assessor, topic, document = setting
    insert = sql.insert_if_absent

    def after_another_request(judgment, unique):  # the other request's insert lands just before ours
        Judgment.objects.create(assessor=assessor, topic=topic, document=document, grade=0)
        return insert(judgment, unique)

    monkeypatch.setattr(sql, "insert_if_absent", after_another_request)
    returned = services.judgment_record(assessor=assessor, topic=topic, document=document, grade=2)
    assert list(Judgment.objects.values_list("id", "grade")) == [(returned.id, 2)]
    assert list(JudgmentHistory.objects.values_list("old_grade", "new_grade", "action")) == [(0, 2, "changed")]


def test_a_first_judgment_is_returned_with_its_row_id_and_timestamps(setting):
    _, assessor, topic, document = setting
    judgment = services.judgment_record(assessor=assessor, topic=topic, document=document, grade=1)
    stored = Judgment.objects.get()
    assert (judgment.pk, judgment.grade, judgment.created_at) == (stored.pk, 1, stored.created_at)
    assert stored.created_at is not None and stored.updated_at is not None
    assert not judgment._state.adding  # saved again later as an update, not a second insert


def test_a_topics_labels_read_together_equal_its_judgments_and_adjudications_read_apart(setting):
    from judging import selectors

    collection, assessor, topic, document = setting
    other = make_user()
    services.assignment_create(assessor=other, topic=topic)
    second = collection.documents.get(docno="d2")
    services.judgment_record(assessor=assessor, topic=topic, document=document, grade=2)
    services.judgment_record(assessor=other, topic=topic, document=document, grade=0)
    services.judgment_record(assessor=other, topic=topic, document=second, grade=None, cannot_judge_reason="blank")
    services.adjudication_record(topic=topic, document=document, grade=1, adjudicator=assessor)

    judgments, adjudications = selectors.topic_labels(topic_id=topic.id)
    assert judgments == selectors.topic_judgments(topic_id=topic.id) == {document.id: {assessor.id: 2, other.id: 0}}
    assert adjudications == selectors.topic_adjudications(topic_id=topic.id) == {document.id: 1}


def test_a_recomputes_inputs_read_in_one_trip_equal_the_collection_labels_and_rankings_read_apart(setting):
    from judging import selectors

    collection, assessor, topic, document = setting
    services.judgment_record(assessor=assessor, topic=topic, document=document, grade=2)
    services.adjudication_record(topic=topic, document=document, grade=1, adjudicator=assessor)

    inputs = selectors.topic_recompute_inputs(topic_id=topic.id)
    stored = type(collection).objects.get(pk=collection.pk)
    fields = [field.attname for field in type(collection)._meta.concrete_fields]
    # Every column converted as the ORM converts it: JSON lists, booleans and dates as Python values.
    assert {f: getattr(inputs.collection, f) for f in fields} == {f: getattr(stored, f) for f in fields}
    assert isinstance(inputs.collection.measures, list) and inputs.collection.measures
    assert (inputs.judgments, inputs.adjudications) == selectors.topic_labels(topic_id=topic.id)
    assert inputs.rankings_name == selectors.topic_rankings_name(topic_id=topic.id)
    with pytest.raises(type(collection).DoesNotExist):
        selectors.topic_recompute_inputs(topic_id=topic.id + 10_000)
