"""Answers' scores follow every assignment, nugget edit, importance change, adjudication and role change through
the staleness protocol, and equal what `python -m evaluation.nuggets` computes from the app's own exports."""

from __future__ import annotations

import json

import pytest

from evaluation.models import AnswerTopicState
from evaluation.nuggets import selectors
from evaluation.nuggets.core import read_assignments, score_records
from evaluation.nuggets.models import AnswerScores
from judging.machines.services import machine_judge_create
from judging.rag.services import assignments
from judging.rag.services.answers import support_record
from judging.rag.services.nuggets import nugget_edit, nugget_remove
from judging.sources.services import label_source_set
from tests.rag_campaign import rag_campaign

pytestmark = pytest.mark.django_db


@pytest.fixture
def rag(django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        campaign = rag_campaign()
    campaign.record = lambda **kw: _recorded(django_capture_on_commit_callbacks, **kw)
    campaign.capture = django_capture_on_commit_callbacks
    return campaign


def _recorded(capture, *, who, answer, nugget, label):
    with capture(execute=True):
        assignments.assignment_record(assessor=who, answer=answer, nugget=nugget, label=label)


def _scores(answer) -> dict:
    row = AnswerScores.objects.get(answer=answer)
    return {name: getattr(row, name) for name in ("strict_vital_score", "strict_all_score", "vital_score", "all_score")}


def test_an_answer_is_scored_from_its_assignments_and_unassigned_nuggets_count_zero(rag):
    answer = rag.answer("rag-a", "1")
    rag.record(who=rag.alice, answer=answer, nugget=rag.nuggets["1", 0], label="support")
    rag.record(who=rag.alice, answer=answer, nugget=rag.nuggets["1", 1], label="partial_support")
    # nuggets: capital (vital, support), size (okay, partial), history (vital, not assigned yet)
    assert _scores(answer) == {"strict_vital_score": 0.5, "strict_all_score": 1 / 3, "vital_score": 0.5,
                               "all_score": 1.5 / 3}  # fmt: skip
    assert AnswerTopicState.objects.get(topic=answer.topic).fresh


def test_an_answer_nobody_assigned_is_left_out_of_its_runs_mean(rag):
    rag.record(who=rag.alice, answer=rag.answer("rag-a", "1"), nugget=rag.nuggets["1", 0], label="support")
    board = {row["run"]: row for row in selectors.rag_leaderboard(collection=rag.collection)["runs"]}
    assert (board["rag-a"]["scored"], board["rag-a"]["answers"]) == (1, 2)
    assert board["rag-a"]["strict_vital_score"] == 0.5
    assert board["rag-b"]["all_score"] is None


def test_an_importance_change_and_a_removal_move_the_scores(rag):
    answer = rag.answer("rag-a", "1")
    rag.record(who=rag.alice, answer=answer, nugget=rag.nuggets["1", 1], label="support")
    assert _scores(answer)["strict_vital_score"] == 0.0
    with rag.capture(execute=True):
        nugget_edit(nugget=rag.nuggets["1", 1], by=rag.alice, importance="vital")
    assert _scores(answer)["strict_vital_score"] == pytest.approx(1 / 3)
    with rag.capture(execute=True):
        nugget_remove(nugget=rag.nuggets["1", 0], by=rag.alice)
    assert _scores(answer)["strict_vital_score"] == 0.5  # size and history are left, both vital


def test_a_tie_between_two_people_goes_to_the_more_supportive_label_until_an_admin_settles_it(rag, admin_user):
    answer, nugget = rag.answer("rag-a", "2"), rag.nuggets["2", 0]
    rag.record(who=rag.alice, answer=answer, nugget=nugget, label="support")
    rag.record(who=rag.bob, answer=answer, nugget=nugget, label="not_support")
    assert _scores(answer)["strict_all_score"] == pytest.approx(1 / 3)
    report = AnswerTopicState.objects.get(topic=answer.topic).agreement
    assert (report["items"], report["disagreements"]) == (1, 1)
    with rag.capture(execute=True):
        assignments.assignment_adjudicate(answer=answer, nugget=nugget, label="not_support", adjudicator=admin_user)
    assert _scores(answer)["strict_all_score"] == 0.0
    assert AnswerTopicState.objects.get(topic=answer.topic).agreement["disagreements"] == 0


def test_a_machines_assignments_count_only_once_its_source_is_made_counted(rag, admin_user):
    with rag.capture(execute=True):
        judge = machine_judge_create(collection=rag.collection, name="assigner", provider="lexical")
    answer = rag.answer("rag-b", "1")
    with rag.capture(execute=True):
        assignments.assignments_record_machine(
            account=judge.account,
            answer=answer,
            reply="[...]",
            labels=[
                (rag.nuggets["1", 0], "support"),
                (rag.nuggets["1", 1], "failed"),
                (rag.nuggets["1", 2], "support"),
            ],
        )
    assert AnswerScores.objects.get(answer=answer).strict_all_score is None  # advisory: no counted record
    with rag.capture(execute=True):
        label_source_set(collection=rag.collection, account=judge.account, role="counted", changed_by=admin_user)
    assert _scores(answer)["strict_all_score"] == pytest.approx(2 / 3)  # the failed call earns 0, in the denominator


def test_support_precision_and_recall_follow_the_support_judgments(rag):
    answer = rag.answer("rag-a", "1")  # sentence 0 cites d1; sentence 1 cites d2 and d1
    d1, d2 = answer.references
    with rag.capture(execute=True):
        support_record(assessor=rag.alice, answer=answer, sentence=0, document_id=d1, label="full")
        support_record(assessor=rag.alice, answer=answer, sentence=1, document_id=d2, label="partial")
    row = AnswerScores.objects.get(answer=answer)
    assert (row.support_precision, row.support_recall) == (0.75, 0.75)
    assert (row.support_judged, row.support_cited) == (2, 3)


def test_the_command_line_equals_the_apps_stored_scores_on_the_exported_labels(rag):
    for (topic, index), nugget in rag.nuggets.items():
        for run in ("rag-a", "rag-b"):
            label = ["support", "partial_support", "not_support"][(index + len(run) + int(topic)) % 3]
            rag.record(who=rag.alice, answer=rag.answer(run, topic), nugget=nugget, label=label)
    rag.record(who=rag.bob, answer=rag.answer("rag-b", "2"), nugget=rag.nuggets["2", 2], label="support")
    lines = []
    for run in rag.collection.runs.all():
        lines += [json.dumps(r) for r in selectors.assignment_records(collection=rag.collection, run=run)]
    cli = score_records(read_assignments(lines, "export.jsonl"))
    board = {row["run"]: row for row in selectors.rag_leaderboard(collection=rag.collection)["runs"]}
    for run, means in cli["runs"].items():
        for name, value in means.items():
            assert board[run][name] == value
    for answer in cli["answers"]:
        assert _scores(rag.answer(answer["run_id"], answer["qid"])) == {
            k: answer[k] for k in _scores(rag.answer(answer["run_id"], answer["qid"]))
        }
