"""Advisory assessors (clicks, machine judges, anyone an admin names): their labels are measured in agreement and
shown, and never counted in the consensus the stored metrics come from."""

from __future__ import annotations

import pytest

from evaluation import selectors
from evaluation import services as evaluation_services
from evaluation.models import AgreementReport, TopicState
from judging import services
from judging.sources import selectors as sources
from tests.factories import make_collection, make_user, stored_aggregates, stored_values

pytestmark = pytest.mark.django_db


@pytest.fixture
def judged():
    collection = make_collection(max_grade=3, topics=2, documents=8, runs=3, depth=4, assessors_per_item=3)
    topic = collection.topics.order_by("id").first()
    person, machine = make_user(), make_user()
    for user in (person, machine):
        services.assignment_create(assessor=user, topic=topic)
    documents = [item.document for item in topic.pool_items.order_by("id")]
    for document, grade in zip(documents[:3], (3, 0, 2), strict=True):
        services.judgment_record(assessor=person, topic=topic, document=document, grade=grade)
    evaluation_services.collection_recompute(collection_id=collection.id)
    return collection, topic, person, machine, documents


def test_an_advisory_assessors_labels_never_change_the_stored_metrics(judged):
    collection, topic, person, machine, documents = judged
    services.collection_settings_update(collection=collection, advisory_assessors=[machine])
    evaluation_services.collection_recompute(collection_id=collection.id)
    before = (stored_values(collection), stored_aggregates(collection))
    for document, grade in zip(documents[:4], (0, 3, 3, 3), strict=True):  # disagrees, and judges one more item
        services.judgment_record(assessor=machine, topic=topic, document=document, grade=grade)
    evaluation_services.topic_recompute(topic_id=topic.id)
    assert TopicState.objects.get(topic=topic).fresh
    assert (stored_values(collection), stored_aggregates(collection)) == before
    collection.refresh_from_db()
    labels = selectors.consensus_labels(collection=collection)[topic.id].labels
    assert labels == {documents[0].id: 3, documents[1].id: 0, documents[2].id: 2}  # the fourth: advisory only
    report = AgreementReport.objects.get(collection=collection, topic=topic).report
    assert report["assessors"] == [str(person.pk)]  # no assessor in the agreement among those who count
    assert report["advisory_against_consensus"][str(machine.pk)]["items"] == 3  # measured against the consensus


def test_every_agreement_figure_leaves_an_advisory_machine_out(judged):
    from measures import agreement

    collection, topic, person, machine, documents = judged
    other = make_user()
    services.assignment_create(assessor=other, topic=topic)
    for document, grade in zip(documents[:3], (3, 1, 2), strict=True):
        services.judgment_record(assessor=other, topic=topic, document=document, grade=grade)
    services.collection_settings_update(collection=collection, advisory_assessors=[machine])
    for document, grade in zip(documents[:4], (0, 3, 0, 3), strict=True):
        services.judgment_record(assessor=machine, topic=topic, document=document, grade=grade)
    evaluation_services.collection_recompute(collection_id=collection.id)
    people = [{person.pk: g, other.pk: h} for g, h in ((3, 3), (0, 1), (2, 2))]
    expected = agreement.agreement_report(people, categories=range(4), threshold=collection.relevance_threshold)
    for scope in (topic, None):
        report = AgreementReport.objects.get(collection=collection, topic=scope).report
        assert report["assessors"] == sorted([str(person.pk), str(other.pk)])
        assert report["graded"]["fleiss_kappa"] == pytest.approx(expected["graded"]["fleiss_kappa"])
        assert report["graded"]["percent_agreement"] == pytest.approx(expected["graded"]["percent_agreement"])
        assert str(machine.pk) not in report["system_ranking"]["against_consensus"]
        assert set(report["advisory_against_consensus"]) == {str(machine.pk)}
    shown = selectors.collection_agreement(collection_id=collection.id)  # the leaderboard's box
    assert shown["fleiss_kappa"] == pytest.approx(expected["graded"]["fleiss_kappa"])


def test_the_same_labels_counted_do_change_them_and_the_settings_key_says_which(judged):
    collection, topic, _, machine, documents = judged
    for document, grade in zip(documents[:3], (0, 3, 3), strict=True):
        services.judgment_record(assessor=machine, topic=topic, document=document, grade=grade)
    evaluation_services.topic_recompute(topic_id=topic.id)
    counted = stored_aggregates(collection)
    collection = services.collection_settings_update(collection=collection, advisory_assessors=[machine.pk])
    assert selectors.settings_key(collection).endswith(f";advisory={machine.pk}")
    evaluation_services.collection_recompute(collection_id=collection.id)
    assert stored_aggregates(collection) != counted


def test_an_admin_makes_an_assessor_advisory_on_the_settings_page(client, judged):
    from tests.judging.test_setup_pages import FORM

    collection, topic, _, machine, _ = judged
    client.force_login(make_user("admin"))
    page = client.get(f"/judging/collections/{collection.id}/settings/").content.decode()
    assert f'value="{machine.pk}"' in page and machine.username in page
    data = {**FORM, "name": collection.name, "max_grade": "3", "advisory_assessors": [str(machine.pk)]}
    response = client.post(f"/judging/collections/{collection.id}/settings/", data)
    assert response.status_code == 302, response.content.decode()[:3000]
    collection.refresh_from_db()
    assert sources.advisory_accounts(collection=collection) == {machine.pk}
    assert not TopicState.objects.get(topic=topic).fresh  # a consensus setting: recomputed
    with pytest.raises(Exception, match="no account"):
        services.collection_settings_update(collection=collection, advisory_assessors=[10**9])


def test_the_settings_page_shows_who_is_advisory_and_gold_so_saving_it_keeps_them(client, judged):
    import re

    collection, _, person, machine, _ = judged
    services.collection_settings_update(collection=collection, advisory_assessors=[machine], gold_assessors=[person])
    client.force_login(make_user("admin"))
    page = client.get(f"/judging/collections/{collection.id}/settings/").content.decode()
    checked = {
        name: set(re.findall(rf'name="{name}" value="(\d+)"[^>]*checked', page))
        for name in ("advisory_assessors", "gold_assessors")
    }
    assert checked == {"advisory_assessors": {str(machine.pk)}, "gold_assessors": {str(person.pk)}}


def test_a_machine_is_named_by_its_judge_everywhere_and_people_alone_are_pseudonymised(client):
    from judging import selectors as judging_selectors
    from judging.machines import services as machine_judges

    collection = make_collection(max_grade=3, topics=2, documents=8, runs=2, depth=4)
    judge = machine_judges.machine_judge_create(collection=collection, name="bm25-judge", provider="lexical")
    machine_judges.machine_judge_run(judge=judge)  # judges first: the first account in the history
    people = [make_user(), make_user()]
    topic = collection.topics.order_by("id").first()
    documents = [item.document for item in topic.pool_items.order_by("id")]
    for person, grades in zip(people, ((3, 0, 2), (3, 1, 2)), strict=True):
        services.assignment_create(assessor=person, topic=topic)
        for document, grade in zip(documents, grades, strict=False):
            services.judgment_record(assessor=person, topic=topic, document=document, grade=grade)
    evaluation_services.collection_recompute(collection_id=collection.id)
    names = judging_selectors.assessor_names(collection=collection, reveal=False)
    assert names == {judge.account_id: "bm25-judge", people[0].pk: "assessor-1", people[1].pk: "assessor-2"}
    client.force_login(make_user("researcher"))
    for url in (f"/results/{collection.id}/agreement/", f"/results/{collection.id}/reliability/"):
        page = client.get(url).content.decode()
        assert "assessor-3" not in page and judge.account.username not in page
    assert 'data-assessor="bm25-judge"' in client.get(f"/results/{collection.id}/reliability/").content.decode()
