"""Panels (#48, item 5): a judge may be a panel of the collection's judges, its label of a pair their grades combined
by majority or mean, their grades kept as its votes; measured like any judge; a member's new configuration is a
new version of its panels; a panel's members are checked, naming the field."""

from __future__ import annotations

import pytest
from django.core.exceptions import ValidationError

from evaluation.machines.selectors import judge_verification
from judging import services
from judging.machines import services as machine_judges
from judging.machines.core.panels import combined
from judging.machines.models import MachineReply
from judging.models import Judgment, PoolItem
from tests.api_clients import role_clients
from tests.chat_server import chat_server
from tests.factories import make_collection, make_user


def test_members_grades_combine_by_majority_or_by_mean_rounded_half_up():
    assert combined([3, 3, 0], "majority") == 3 and combined([0, 3], "majority") == 0
    assert combined([1, 2], "mean") == 2 and combined([0, 1, 1], "mean") == 1 and combined([3, 0, 0], "mean") == 1
    with pytest.raises(ValueError):
        combined([], "mean")
    with pytest.raises(ValueError):
        combined([1], "median")


def _members(collection, count=3):
    return [
        machine_judges.machine_judge_create(collection=collection, name=f"m{i}", provider="lexical")
        for i in range(count)
    ]


@pytest.mark.django_db
@pytest.mark.parametrize(("how", "expected"), [("majority", 3), ("mean", 2)])
def test_a_panel_labels_each_pair_from_its_members_labels_with_their_grades_as_votes(how, expected):
    collection = make_collection(max_grade=3, topics=1, documents=6, runs=1, depth=4)
    members = _members(collection)
    items = list(PoolItem.objects.filter(topic__collection=collection).order_by("id"))
    first, unlabelled = items[0], items[1]
    services.judgments_record_bulk(labels={(m.account, first.topic_id, first.document_id): g
                                           for m, g in zip(members, (3, 3, 0), strict=True)})  # fmt: skip
    for item in items[2:]:
        services.judgments_record_bulk(labels={(members[0].account, item.topic_id, item.document_id): 1})
    panel = machine_judges.machine_judge_create(
        collection=collection, name="panel", provider="panel", combine=how, members=[m.id for m in members]
    )
    result = machine_judges.machine_judge_run(judge=panel)
    assert (result["labelled"], result["failed"]) == (len(items) - 1, 1)
    reply = MachineReply.objects.get(judge=panel, document_id=first.document_id)
    assert reply.grade == expected and sorted(reply.votes) == [0, 3, 3]
    assert reply.reply.startswith(f"{how} of 3 of 3 members")
    failed = MachineReply.objects.get(judge=panel, document_id=unlabelled.document_id)
    assert failed.failure == "no member has labelled this pair yet"
    assert Judgment.objects.get(assessor=panel.account, document_id=first.document_id).grade == expected


@pytest.mark.django_db
def test_a_panels_members_are_checked_naming_the_field():
    collection, other = make_collection(), make_collection()
    members = _members(collection, 2)
    stranger = _members(other, 1)[0]
    for chosen, words in (([members[0].id], "at least two"), ([members[0].id, stranger.id], "own collection")):
        with pytest.raises(ValidationError, match=words) as refused:
            machine_judges.machine_judge_create(collection=collection, name="p", provider="panel", members=chosen)
        assert list(refused.value.message_dict) == ["members"]
    panel = machine_judges.machine_judge_create(
        collection=collection, name="p", provider="panel", members=[m.id for m in members]
    )
    with pytest.raises(ValidationError, match="not panels"):
        machine_judges.machine_judge_create(
            collection=collection, name="q", provider="panel", members=[panel.id, members[0].id]
        )
    with pytest.raises(ValidationError, match="only a panel"):
        machine_judges.machine_judge_create(collection=collection, name="r", provider="lexical", members=[panel.id])


@pytest.mark.django_db
def test_a_members_new_configuration_is_a_new_version_of_its_panel():
    collection = make_collection()
    with chat_server({}) as server:
        chat = machine_judges.machine_judge_create(collection=collection, name="llm", base_url=server.base_url,
                                                   model="a")  # fmt: skip
        baseline = _members(collection, 1)[0]
        panel = machine_judges.machine_judge_create(
            collection=collection, name="p", provider="panel", members=[chat.id, baseline.id]
        )
        machine_judges.machine_judge_update(judge=chat, concurrency=2)  # a limit: nothing a reply depends on
        panel.refresh_from_db()
        assert panel.version == 1
        machine_judges.machine_judge_update(judge=chat, model="b")
    panel.refresh_from_db()
    assert panel.version == 2


@pytest.mark.django_db
def test_a_panel_is_measured_like_any_judge_and_made_through_the_api():
    collection = make_collection(max_grade=3, topics=2, documents=6, runs=2, depth=4)
    person = make_user("assessor")
    items = list(PoolItem.objects.filter(topic__collection=collection))
    services.judgments_record_bulk(labels={(person, i.topic_id, i.document_id): i.document_id % 4 for i in items})
    members = _members(collection, 2)
    for member in members:
        machine_judges.machine_judge_run(judge=member)
    admin = role_clients()["admin"]
    made = admin.post(
        f"/api/collections/{collection.id}/machine-judges/",
        {"name": "panel", "provider": "panel", "combine": "mean", "members": [m.id for m in members]},
        format="json",
    )
    assert made.status_code == 201, made.content
    panel = collection.machine_judges.get(name="panel")
    machine_judges.machine_judge_run(judge=panel)
    report = judge_verification(judge=panel, reveal=True)
    assert report["labels"] == len(items) and report["against_consensus"]["items"] == len(items)
    assert report["calibration"]["sampled"] is True
