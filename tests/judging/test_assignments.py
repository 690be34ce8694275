"""Balanced automatic assignment and manual reassignment of topics to assessors."""

from __future__ import annotations

import pytest
from django.core.exceptions import ValidationError

from judging import services
from judging.models import Assignment, PoolItem
from tests.factories import make_collection, make_user

pytestmark = pytest.mark.django_db


def _loads(collection):
    sizes = {}
    for assignment in Assignment.objects.filter(topic__collection=collection):
        pool = PoolItem.objects.filter(topic=assignment.topic).count()
        sizes[assignment.assessor_id] = sizes.get(assignment.assessor_id, 0) + pool
    return sizes


def test_every_topic_gets_k_distinct_assessors_and_the_work_is_spread_evenly():
    collection = make_collection(topics=6, documents=12, runs=2, depth=4, assessors_per_item=2)
    people = [make_user("assessor") for _ in range(3)]
    created = services.assignments_balance(collection=collection, assessors=people)
    assert len(created) == 12
    for topic in collection.topics.all():
        assert topic.assignments.count() == 2
    loads = _loads(collection)
    assert max(loads.values()) - min(loads.values()) <= max(
        PoolItem.objects.filter(topic=t).count() for t in collection.topics.all()
    )


def test_balancing_again_adds_only_what_is_missing_and_counts_existing_assignments():
    collection = make_collection(topics=4, documents=12, runs=2, depth=4, assessors_per_item=2)
    a, b, c = (make_user("assessor") for _ in range(3))
    first = collection.topics.order_by("id").first()
    services.assignment_create(assessor=a, topic=first)
    created = services.assignments_balance(collection=collection, assessors=[a, b, c])
    assert len(created) == 4 * 2 - 1
    assert services.assignments_balance(collection=collection, assessors=[a, b, c]) == []


def test_k_larger_than_the_assessors_chosen_gives_each_topic_all_of_them():
    collection = make_collection(topics=2, assessors_per_item=3)
    people = [make_user("assessor") for _ in range(2)]
    services.assignments_balance(collection=collection, assessors=people)
    assert all(t.assignments.count() == 2 for t in collection.topics.all())


def test_only_assessors_can_be_assigned():
    collection = make_collection(topics=1)
    with pytest.raises(ValidationError, match="not in the assessor role"):
        services.assignments_balance(collection=collection, assessors=[make_user("researcher")])
    with pytest.raises(ValidationError, match="at least one"):
        services.assignments_balance(collection=collection, assessors=[])


def test_reassigning_hands_the_topic_over_and_keeps_the_first_assessors_judgments():
    collection = make_collection(topics=1, assessors_per_item=1)
    topic = collection.topics.get()
    a, b = make_user("assessor"), make_user("assessor")
    assignment = services.assignment_create(assessor=a, topic=topic)
    document = topic.pool_items.first().document
    services.judgment_record(assessor=a, topic=topic, document=document, grade=1)
    moved = services.assignment_reassign(assignment=assignment, assessor=b)
    assert moved.assessor == b and not Assignment.objects.filter(assessor=a).exists()
    assert topic.judgments.get().assessor == a


def test_reassigning_to_someone_already_on_the_topic_is_refused():
    collection = make_collection(topics=1)
    topic = collection.topics.get()
    a, b = make_user("assessor"), make_user("assessor")
    assignment = services.assignment_create(assessor=a, topic=topic)
    services.assignment_create(assessor=b, topic=topic)
    with pytest.raises(ValidationError, match="already assigned"):
        services.assignment_reassign(assignment=assignment, assessor=b)
    assert Assignment.objects.get(pk=assignment.pk).assessor == a


def test_the_assign_command_assigns_and_names_unknown_assessors(capsys):
    from django.core.management import CommandError, call_command

    collection = make_collection(topics=2, assessors_per_item=1)
    a, b = make_user("assessor"), make_user("assessor")
    call_command("assign_assessors", collection.name, a.username, b.username)
    assert Assignment.objects.filter(topic__collection=collection).count() == 2
    assert "2 assignment(s) added" in capsys.readouterr().err
    with pytest.raises(CommandError, match="not assessors: ghost"):
        call_command("assign_assessors", collection.name, "ghost")


def test_naming_unknown_assessors_topics_or_runs_lists_every_one_in_the_field():
    from judging import selectors

    collection = make_collection(topics=2, runs=1)
    with pytest.raises(ValidationError) as error:
        selectors.topics_numbered(collection=collection, numbers=["1", "77", "78"])
    assert error.value.message_dict == {"topics": [f"no such topic(s) in {collection.name}: 77, 78"]}
    with pytest.raises(ValidationError, match="no such run"):
        selectors.runs_tagged(collection=collection, tags=["run0", "nope"])
    researcher = make_user("researcher")
    with pytest.raises(ValidationError) as error:
        selectors.assessors_named(usernames=[researcher.username, "ghost"])
    assert error.value.message_dict == {"assessors": [f"not assessors: ghost, {researcher.username}"]}
    assert [t.number for t in selectors.topics_numbered(collection=collection, numbers=["2"])] == ["2"]
