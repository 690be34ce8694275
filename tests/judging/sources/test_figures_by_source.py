"""A property of every campaign figure (#47): on random collections with people, an advisory machine judge, a gold
person and an imported file reaching past the pool, each figure of the standing API and the campaign card, the
dashboard and an assessor's start page equals a count made directly from the labels by their source, and no
progress figure is ever negative."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from judging import selectors, services
from judging.machines import services as machine_judges
from judging.models import PoolItem, Topic
from judging.sources.models import SourceKind, SourceRole
from judging.sources.services import label_source_set
from tests.api_clients import role_clients
from tests.factories import make_collection, make_user

pytestmark = [pytest.mark.django_db, pytest.mark.slow]

GRADE = st.one_of(st.none(), st.integers(0, 3))  # None: "cannot judge"


@st.composite
def campaigns(draw):
    documents = draw(st.integers(6, 12))
    return {
        "documents": documents,
        "depth": draw(st.integers(2, documents)),
        "k": draw(st.integers(1, 2)),
        "people": draw(st.lists(st.dictionaries(st.integers(0, documents - 1), GRADE), min_size=1, max_size=3)),
        "gold": draw(st.dictionaries(st.integers(0, documents - 1), st.integers(0, 3))),
        "machine": draw(st.dictionaries(st.integers(0, documents - 1), st.integers(0, 3))),
        "imported": draw(st.dictionaries(st.integers(0, documents - 1), st.integers(0, 3))),
    }


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(campaign=campaigns())
def test_every_figure_is_a_direct_count_of_the_labels_by_source(campaign):
    collection = make_collection(max_grade=3, topics=1, documents=campaign["documents"], runs=2,
                                 depth=campaign["depth"], assessors_per_item=campaign["k"])  # fmt: skip
    topic = Topic.objects.get(collection=collection)
    documents = list(collection.documents.order_by("id").values_list("id", flat=True))
    pool = set(PoolItem.objects.filter(topic=topic).values_list("document_id", flat=True))
    people = [make_user("assessor") for _ in campaign["people"]]
    gold, imported = make_user("assessor"), make_user("assessor")
    label_source_set(collection=collection, account=gold, role=SourceRole.GOLD)
    label_source_set(collection=collection, account=imported, kind=SourceKind.IMPORTED)
    machine = machine_judges.machine_judge_create(collection=collection, name="m", provider="lexical").account
    labels = {}
    for person, theirs in zip(people, campaign["people"], strict=True):
        labels |= {(person, topic.id, documents[i]): g for i, g in theirs.items() if documents[i] in pool}
    for account, key in ((gold, "gold"), (machine, "machine")):
        labels |= {(account, topic.id, documents[i]): g for i, g in campaign[key].items() if documents[i] in pool}
    labels |= {(imported, topic.id, documents[i]): g for i, g in campaign["imported"].items()}  # past the pool too
    services.judgments_record_bulk(labels={key: grade for key, grade in labels.items() if grade is not None})
    for person in people:
        services.assignment_create(assessor=person, topic=topic)
    for (account, _, document), grade in labels.items():
        if grade is None:  # a person's "cannot judge": a label, not a grade
            services.judgment_record(assessor=account, topic=topic, document=collection.documents.get(pk=document),
                                     grade=None, cannot_judge_reason="in a language I do not read")  # fmt: skip

    by_person: dict[int, list] = {}
    for (account, _, document), grade in labels.items():
        if document in pool and account in (*people, gold):
            by_person.setdefault(document, []).append(grade)
    # Judged by people: a person's grade (a "cannot judge" is no grade); labelled only by machines: another
    # source's grade and no person's.
    judged_by_people = {d for d, grades in by_person.items() if any(g is not None for g in grades)}
    relevant = {d for d, grades in by_person.items() if max((g for g in grades if g is not None), default=-1) >= 1}
    graded_by_others = {
        d for (a, _, d), g in labels.items() if d in pool and a in (machine, imported) and g is not None
    }
    machines_only = graded_by_others - judged_by_people

    figures = role_clients()["admin"].get(f"/api/collections/{collection.id}/standing/").json()
    assert figures["pooled_items"] == len(pool)
    assert figures["items_judged_by_people"] == len(judged_by_people)
    assert figures["unjudged_by_people"] == len(pool) - len(judged_by_people) >= 0
    assert figures["relevant_found_by_people"] == len(relevant)
    assert figures["items_labelled_only_by_machines"] == len(machines_only)
    assert figures["estimated_relevant_left"] >= 0

    counted_graded = {d for (a, _, d), g in labels.items() if d in pool and g is not None and a != machine}
    overview = {c.id: c for c in selectors.collections_overview()}[collection.id]
    assert overview.judged_items == len(counted_graded) <= overview.pool_size == len(pool)

    for person in people:
        (assignment,) = selectors.assignments_for_assessor(assessor_id=person.id)
        mine = {d for (a, _, d) in labels if a == person and d in pool}
        filled = {
            d for d in pool - mine
            if sum(1 for (a, _, e), g in labels.items() if e == d and a != machine and a != person and g is not None)
            >= campaign["k"]
        }  # fmt: skip
        assert assignment.judged == len(mine) >= 0
        assert assignment.total == len(pool) - len(filled) >= assignment.judged
