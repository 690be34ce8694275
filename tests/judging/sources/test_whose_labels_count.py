"""Whose labels count (#47, first findings): the campaign's standing counts the people's labels of pooled items, never
a machine judge's, and says how many items only a machine labelled; labels beyond the pool close no item and make
no progress figure negative; the embedded judge fits its thresholds on every person's label, two people's labels of
one pair being two observations."""

from __future__ import annotations

import pytest

from judging import progress, selectors, services
from judging.machines import providers
from judging.machines import services as machine_judges
from judging.machines.core.lexical import lexical_labels
from judging.models import PoolItem, Topic
from judging.sources import selectors as sources
from judging.sources.models import SourceKind
from judging.sources.services import label_source_set
from tests.factories import make_collection, make_user

pytestmark = pytest.mark.django_db


def _pool(collection):
    return list(
        PoolItem.objects.filter(topic__collection=collection).order_by("id").values_list("topic_id", "document_id")
    )


def test_where_we_stand_counts_people_not_a_machine_that_labelled_the_whole_pool(client):
    collection = make_collection(max_grade=3, topics=2, documents=12, runs=3, depth=6)
    pool = _pool(collection)
    judge = machine_judges.machine_judge_create(collection=collection, name="bm25", provider="lexical")
    services.judgments_record_bulk(labels={(judge.account, t, d): 3 for t, d in pool})  # all relevant, says it
    person = make_user("assessor")
    people = {(person, t, d): (2 if i % 2 else 0) for i, (t, d) in enumerate(pool[:5])}
    services.judgments_record_bulk(labels=people)
    collection.refresh_from_db()
    standing = selectors.collection_standing(
        collection=collection, rankings=selectors.collection_rankings(collection_id=collection.id)
    )
    assert standing.unjudged == len(pool) - 5  # not 0: the machine's labels judge nothing
    assert standing.relevant_found == sum(1 for grade in people.values() if grade >= 1)  # 2, not the whole pool
    assert selectors.items_labelled_only_by_machines(collection=collection) == len(pool) - 5
    client.force_login(make_user("admin"))
    page = client.get(f"/judging/collections/{collection.id}/standing/").content.decode()
    assert f'data-figure="relevant-found">{standing.relevant_found}<' in page
    assert f"{len(pool) - 5} labelled only by a machine, a file or clicks" in page
    assert "Judged by people (a person's grade): <strong>5</strong>" in page


def test_labels_beyond_the_pool_make_no_progress_figure_negative(client):
    collection = make_collection(max_grade=1, topics=1, documents=40, runs=1, depth=5, assessors_per_item=1)
    topic = Topic.objects.get(collection=collection)
    pooled = {d for _, d in _pool(collection)}
    beyond = [d for d in collection.documents.values_list("id", flat=True) if d not in pooled]
    imported = make_user("assessor")  # an imported qrels' account, counted
    services.judgments_record_bulk(labels={(imported, topic.id, d): 1 for d in beyond})
    assessor = make_user("assessor")
    services.assignment_create(assessor=assessor, topic=topic)
    services.judgments_record_bulk(labels={(assessor, topic.id, d): 0 for d in beyond[:3]})  # theirs, unpooled
    (assignment,) = selectors.assignments_for_assessor(assessor_id=assessor.id)
    assert (assignment.judged, assignment.total) == (0, len(pooled))  # was "0 / -30": unpooled labels closed items
    client.force_login(assessor)
    page = client.get("/judging/assignments/").content.decode()
    assert "-" + str(len(beyond)) not in page and f"{len(pooled)} documents left" in page


def test_the_embedded_judge_fits_on_every_persons_label_not_one_per_pair(monkeypatch):
    from judging.machines.core import lexical

    fitted = []
    real = lexical.fitted_thresholds
    monkeypatch.setattr(lexical, "fitted_thresholds", lambda s, g, m: fitted.append(sorted(g)) or real(s, g, m))
    topics = {"1": "apple pie", "2": "banana bread"}
    documents = {"a": "apple pie recipe", "b": "apple", "c": "banana bread loaf"}
    pairs = [(t, d) for t in topics for d in documents]
    two_people = [("1", "a", 3), ("1", "b", 0), ("1", "a", 0)]  # the second person disagrees on (1, a)
    lexical_labels(topics, pairs, documents, two_people, max_grade=3)
    assert fitted[1] == [0, 0, 3]  # topic 2's cuts, fitted on topic 1's labels: both of (1, a), not the last alone


def test_the_embedded_judge_run_reads_both_peoples_labels_of_a_pair(monkeypatch):
    collection = make_collection(max_grade=3, topics=2, documents=8, runs=2, depth=4)
    (t1, d1), *_ = _pool(collection)
    ann, bob = make_user("assessor"), make_user("assessor")
    services.judgments_record_bulk(labels={(ann, t1, d1): 3, (bob, t1, d1): 0})
    judge = machine_judges.machine_judge_create(collection=collection, name="bm25", provider="lexical")
    seen = []
    monkeypatch.setattr(providers, "lexical_labels", lambda q, p, d, people, max_grade: seen.extend(people) or {})
    machine_judges.machine_judge_run(judge=judge)
    assert sorted(g for t, d, g in seen if (t, d) == (str(t1), str(d1))) == [0, 3]


def test_an_imported_reference_is_measured_but_never_flagged_as_drifting():
    from evaluation.agreement.reliability import assessor_reliability

    collection = make_collection(max_grade=3, topics=1, documents=240, runs=1, depth=240)
    topic = Topic.objects.get(collection=collection)
    items = [d for _, d in _pool(collection)]
    grades = [0] * 60 + [3] * 60  # the grades change for good half way: a person's drift
    person = make_user("assessor")
    reference = services.user_create(username="qrels:nist", password="unused-pass-123", role="assessor")
    label_source_set(collection=collection, account=reference, kind=SourceKind.IMPORTED)  # as a qrels import does
    for account, mine in ((person, items[:120]), (reference, items[120:])):  # apart: the grades are the yardstick
        services.judgments_record_bulk(labels={(account, topic.id, d): g for d, g in zip(mine, grades, strict=True)})
    rows = {row.assessor: row for row in assessor_reliability(collection=collection, reveal=True)}
    assert [flag["kind"] for flag in rows[person.username].flags] == ["drift"]  # the same labels, a person: flagged
    assert rows["qrels:nist"].kind == "imported" and rows["qrels:nist"].flags == []
    assert rows["qrels:nist"].judgments == 120  # still measured


def test_pauses_and_reliability_measure_an_assessor_by_the_collections_own_consensus_method():
    """Finding 3: the others' label was a majority vote written twice (and once more in the consensus), whatever
    the collection's method. Under "primary", the primary assessor's grade is the yardstick for everyone."""
    from evaluation.agreement.reliability import _labelled, _yardsticks
    from judging.quality.services.pauses import assessor_pause_check

    collection = make_collection(max_grade=1, topics=1, documents=12, runs=1, depth=12, assessors_per_item=4)
    topic = Topic.objects.get(collection=collection)
    items = [d for _, d in _pool(collection)]
    primary, q, r, newcomer = (make_user("assessor") for _ in range(4))
    services.collection_settings_update(
        collection=collection, consensus_method="primary", primary_assessor=primary, pause_below=0.5, pause_window=10
    )
    collection.refresh_from_db()
    services.judgments_record_bulk(labels={(primary, topic.id, d): 0 for d in items})
    services.judgments_record_bulk(labels={(who, topic.id, d): 1 for who in (q, r) for d in items})
    services.judgments_record_bulk(labels={(newcomer, topic.id, d): 0 for d in items})  # agrees with the primary
    assert assessor_pause_check(collection=collection, assessor=newcomer) is None  # majority (1) would pause them
    yardsticks = _yardsticks(collection, _labelled(collection).labels)
    assert set(yardsticks[newcomer.pk].values()) == {0}  # the primary's grade, as the consensus would take it
    assert assessor_pause_check(collection=collection, assessor=q) is not None  # q disagrees with the primary


def test_labels_already_read_by_account_count_as_the_selector_says():
    from judging.sources.selectors import counted_by_account

    labels = {1: ["a"], 2: ["b"], 3: ["c"]}
    assert counted_by_account(labels, advisory={2}) == {1: ["a"], 3: ["c"]}
    assert counted_by_account(labels, advisory=set()) == labels


def test_judged_means_one_thing_on_every_page_and_judged_by_people_another(client):
    """Judged: a grade that counts (a person's or a gold file's; never an advisory machine's, never a "can't judge").
    Judged by people: a person's grade. The campaign figure, the dashboard and the standing each read one of them."""
    collection = make_collection(max_grade=1, topics=1, documents=8, runs=1, depth=8, assessors_per_item=1)
    topic = Topic.objects.get(collection=collection)
    first, second, third, fourth, *_ = [d for _, d in _pool(collection)]
    person, unsure, reference = make_user("assessor"), make_user("assessor"), make_user("assessor")
    judge = machine_judges.machine_judge_create(collection=collection, name="bm25", provider="lexical")
    label_source_set(collection=collection, account=reference, kind=SourceKind.IMPORTED, role="gold")
    services.judgments_record_bulk(labels={(person, topic.id, first): 1, (reference, topic.id, second): 1})
    services.judgments_record_bulk(labels={(judge.account, topic.id, third): 1})  # advisory: judges nothing
    services.assignment_create(assessor=unsure, topic=topic)
    document = collection.documents.get(pk=fourth)
    services.judgment_record(assessor=unsure, topic=topic, document=document, grade=None, cannot_judge_reason="empty")
    assert sources.judged_count(collection=collection) == 2
    assert sources.judged_count(collection=collection, by_people=True) == 1
    assert progress.campaign_progress(collection=collection).items_judged == 2
    assert selectors.collections_overview().get(pk=collection.pk).judged_items == 2
    standing = selectors.collection_standing(
        collection=collection, rankings=selectors.collection_rankings(collection_id=collection.id)
    )
    figures = selectors.standing_figures(collection=collection, standing=standing)
    assert figures["items_judged_by_people"] == 1 and standing.unjudged == figures["unjudged_by_people"] == 7
    assert figures["items_labelled_only_by_machines"] == 2  # the gold file's and the machine's
