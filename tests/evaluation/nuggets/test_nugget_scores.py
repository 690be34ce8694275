"""Nugget scores as castorini/nuggetizer's core/metrics.py defines them, hand-worked for every rule, and the command
`python -m evaluation.nuggets` against an independent implementation on random data."""

from __future__ import annotations

import json
import subprocess
import sys
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evaluation.nuggets.__main__ import main
from evaluation.nuggets.core import (
    FileProblem,
    majority,
    nugget_scores,
    read_assignments,
    score_records,
    support_scores,
)


def test_partial_support_earns_half_only_in_the_non_strict_scores():
    scores = nugget_scores([("vital", "support"), ("vital", "partial_support"), ("okay", "partial_support")])
    assert scores.strict_vital_score == 1 / 2
    assert scores.vital_score == 1.5 / 2
    assert scores.strict_all_score == 1 / 3
    assert scores.all_score == 2 / 3


def test_a_failed_label_earns_nothing_and_stays_in_the_denominator():
    scores = nugget_scores([("vital", "support"), ("vital", "failed"), ("okay", "not_support"), ("okay", "weird")])
    assert scores.strict_vital_score == scores.vital_score == 0.5
    assert scores.strict_all_score == scores.all_score == 0.25


def test_a_topic_without_vital_nuggets_scores_zero_on_the_vital_scores():
    scores = nugget_scores([("okay", "support"), ("okay", "support")])
    assert (scores.strict_vital_score, scores.vital_score) == (0.0, 0.0)
    assert (scores.strict_all_score, scores.all_score) == (1.0, 1.0)


def test_an_answer_without_nuggets_scores_zero_everywhere():
    assert nugget_scores([]).as_dict() == dict.fromkeys(
        ["strict_vital_score", "strict_all_score", "vital_score", "all_score"], 0.0
    )


def _record(run, qid, nuggets):
    return json.dumps({"qid": qid, "run_id": run, "query": "q", "answer_text": "a", "response_length": 1,
                       "nuggets": [{"text": t, "importance": i, "assignment": a} for t, i, a in nuggets]})  # fmt: skip


def test_a_run_is_scored_over_its_records_only_and_a_missing_topic_is_left_out():
    lines = [
        _record("A", "1", [("x", "vital", "support")]),
        _record("A", "2", [("x", "vital", "not_support")]),
        _record("B", "1", [("x", "vital", "partial_support")]),  # B has no record for topic 2: not a zero
    ]
    scored = score_records(read_assignments(lines, "a.jsonl"))
    assert scored["runs"]["A"]["strict_vital_score"] == 0.5
    assert scored["runs"]["B"]["vital_score"] == 0.5
    assert [(a["run_id"], a["qid"]) for a in scored["answers"]] == [("A", "1"), ("A", "2"), ("B", "1")]


def test_two_nuggets_sharing_a_text_both_count():
    lines = [_record("A", "1", [("same", "vital", "support"), ("same", "vital", "not_support")])]
    assert score_records(read_assignments(lines, "a.jsonl"))["answers"][0]["strict_vital_score"] == 0.5


def test_a_tie_in_a_vote_goes_to_the_more_supportive_label_and_failed_ranks_lowest():
    order = ("not_support", "partial_support", "support")
    assert majority(["support", "not_support"], order) == "support"
    assert majority(["failed", "not_support"], order) == "not_support"
    assert majority(["partial_support", "support", "partial_support"], order) == "partial_support"
    assert majority([], order) is None


def test_support_precision_is_over_judged_citations_and_recall_over_sentences():
    # sentence 0 cites two segments (full, partial), sentence 1 one (none), sentence 2 none, sentence 3 unjudged
    scores = support_scores([["full", "partial"], ["none"], [], [None]])
    assert scores.precision == pytest.approx((1 + 0.5 + 0) / 3)
    assert scores.recall == pytest.approx((1 + 0 + 0 + 0) / 4)
    assert (scores.judged, scores.cited) == (3, 4)
    assert support_scores([[None], []]).precision is None


@pytest.mark.parametrize(
    ("line", "field"),
    [
        ("not json", "(line)"),
        ('{"run_id": "A", "nuggets": []}', "qid"),
        ('{"qid": "1", "run_id": "", "nuggets": []}', "run_id"),
        ('{"qid": "1", "run_id": "A", "nuggets": [{"text": "t", "importance": "vital"}]}', "nuggets[0].assignment"),
        ('{"qid": "1", "run_id": "A"}', "nuggets"),
        ("[" * 5000 + "]" * 5000, "(line)"),  # Python's reader: a RecursionError
        ('{"qid": "1", "run_id": "A\\u0000", "nuggets": []}', "run_id"),
    ],
)
def test_a_bad_record_is_named_by_file_line_and_field(line, field):
    with pytest.raises(FileProblem) as problem:
        read_assignments([_record("A", "9", []), line], "runs.jsonl")
    assert (problem.value.file, problem.value.line, problem.value.field) == ("runs.jsonl", 2, field)


def test_the_command_prints_answers_and_runs_and_warns_on_an_inconsistent_nuggets_file(tmp_path, capsys):
    nuggets = tmp_path / "nuggets.jsonl"
    nuggets.write_text(json.dumps({"qid": "1", "query": "q", "nuggets": [{"text": "x", "importance": "vital"}]}) + "\n")
    assignments = tmp_path / "assignments.jsonl"
    assignments.write_text("\n".join([_record("A", "1", [("x", "vital", "support")]),
                                      _record("A", "7", [("y", "okay", "support")])]) + "\n")  # fmt: skip
    assert main([str(nuggets), str(assignments), "--run-scores", "--json"]) == 0
    out, err = capsys.readouterr()
    printed = json.loads(out)
    assert len(printed["answers"]) == 2  # the nuggets file never drops an answer
    assert printed["runs"]["A"]["all_score"] == 1.0
    assert "topic 7 is not in the nuggets file" in err


def test_records_without_a_run_id_are_one_run_named_by_the_file_as_nuggetizer_scores_them(tmp_path, capsys):
    # nuggetizer's own tests write assignment records with qid and nuggets only; its calculate_metrics reads no run
    nuggets = tmp_path / "nuggets.jsonl"
    nuggets.write_text(json.dumps({"qid": "1", "query": "q", "nuggets": [{"text": "x"}, {"text": "y"}]}) + "\n")
    assignments = tmp_path / "bm25-gpt4o.jsonl"
    nuggets_assigned = [{"text": "x", "importance": "vital", "assignment": "support"},
                        {"text": "y", "importance": "okay", "assignment": "partial_support"}]  # fmt: skip
    record = {"qid": "1", "nuggets": nuggets_assigned}
    assignments.write_text(json.dumps(record) + "\n")
    assert main([str(nuggets), str(assignments), "--json"]) == 0
    out, err = capsys.readouterr()
    printed = json.loads(out)
    assert printed["answers"][0]["run_id"] == "bm25-gpt4o" and set(printed["runs"]) == {"bm25-gpt4o"}
    assert printed["runs"]["bm25-gpt4o"]["vital_score"] == 1.0 and printed["runs"]["bm25-gpt4o"]["all_score"] == 0.75
    assert err == ""  # a nuggets file without importance (create's output) is consistent with the records' texts


def test_the_command_refuses_a_bad_file_with_its_line(tmp_path):
    nuggets, assignments = tmp_path / "n.jsonl", tmp_path / "a.jsonl"
    nuggets.write_text("")
    assignments.write_text(_record("A", "1", []) + "\n{oops\n")
    finished = subprocess.run(
        [sys.executable, "-m", "evaluation.nuggets", str(nuggets), str(assignments), "--json"],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert finished.returncode == 2
    assert f"{assignments}:2: (line): not valid JSON" in finished.stderr


def _independent(records: list[dict]) -> dict:
    """The rules written again from the track's description, in exact fractions."""
    runs: dict[str, list[dict]] = {}
    answers = []
    for record in records:
        credit = {"support": Fraction(1), "partial_support": Fraction(1, 2)}
        vital = [n for n in record["nuggets"] if n["importance"] == "vital"]
        row = {}
        for prefix, scope in (("vital", vital), ("all", record["nuggets"])):
            strict = sum((1 for n in scope if n["assignment"] == "support"), Fraction(0))
            lenient = sum((credit.get(n["assignment"], Fraction(0)) for n in scope), Fraction(0))
            row[f"strict_{prefix}_score"] = strict / len(scope) if scope else Fraction(0)
            row[f"{prefix}_score"] = lenient / len(scope) if scope else Fraction(0)
        answers.append(row)
        runs.setdefault(record["run_id"], []).append(row)
    means = {run: {k: sum(r[k] for r in rows) / len(rows) for k in rows[0]} for run, rows in runs.items()}
    return {"answers": answers, "runs": means}


labels = st.sampled_from(["support", "partial_support", "not_support", "failed"])
nugget = st.fixed_dictionaries(
    {"text": st.sampled_from(["a", "b", "a b"]), "importance": st.sampled_from(["vital", "okay"]), "assignment": labels}
)
record = st.fixed_dictionaries(
    {
        "qid": st.sampled_from(["1", "2", "3", "4"]),
        "run_id": st.sampled_from(["A", "B", "C"]),
        "nuggets": st.lists(nugget, max_size=8),
    }
)


@settings(max_examples=150, deadline=None)
@given(st.lists(record, max_size=12, unique_by=lambda r: (r["run_id"], r["qid"])))
def test_the_command_agrees_with_an_independent_implementation(records):
    scored = score_records(read_assignments([json.dumps(r) for r in records], "random.jsonl"))
    expected = _independent(records)
    for ours, theirs in zip(scored["answers"], expected["answers"], strict=True):
        for name, value in theirs.items():
            assert ours[name] == pytest.approx(float(value), abs=1e-12)
    assert set(scored["runs"]) == set(expected["runs"])
    for run, means in expected["runs"].items():
        for name, value in means.items():
            assert scored["runs"][run][name] == pytest.approx(float(value), abs=1e-12)
