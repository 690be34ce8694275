"""Assessor quality (judging.quality): gold accuracy, self-agreement and the change test worked by hand and against
scipy; simulated assessors who drift or start answering at random are flagged within a stated number of judgments,
steady ones no more often than the test's false-positive rate; `python -m judging.quality` on a labels file."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
from scipy.stats import chi2, chi2_contingency

from judging.quality.__main__ import main
from judging.quality.core import ALPHA, FAST_RUN, Label, assessor_quality, chi2_homogeneity, quality_report
from measures.intervals import chi2_sf

ROOT = Path(__file__).resolve().parents[3]


def _label(i, grade, *, docno=None, seconds=10.0, assessor="ann"):
    return Label("1", docno or f"d{i}", grade, assessor, f"2026-01-01T10:{i // 60:02d}:{i % 60:02d}", seconds, i)


def test_gold_accuracy_and_self_agreement_worked_by_hand():
    labels = [_label(0, 2, docno="a"), _label(1, 0, docno="b"), _label(2, 3, docno="c"),
              _label(3, 2, docno="a"), _label(4, 1, docno="b")]  # fmt: skip
    gold = {("1", "a"): 2, ("1", "b"): 1, ("1", "c"): 1}
    q = assessor_quality(labels, gold=gold, threshold=2)
    # First labels: a 2 (gold 2), b 0 (gold 1), c 3 (gold 1): exact 1/3, within one 2/3, binarised at 2: a agrees,
    # b agrees (both below), c does not (3 relevant, 1 not): 2/3.
    assert (q.judgments, q.repeats, q.gold_items) == (3, 2, 3)
    assert q.gold_accuracy == pytest.approx(1 / 3) and q.gold_within_one == pytest.approx(2 / 3)
    assert q.gold_binary == pytest.approx(2 / 3)
    # Repeats (first, again): (2, 2), (0, 1). Observed agreement 1/2; chance: first {2: 1/2, 0: 1/2}, again
    # {2: 1/2, 1: 1/2} -> 1/4; kappa = (1/2 - 1/4) / (3/4) = 1/3.
    assert q.self_agreement == pytest.approx(1 / 3) and q.self_exact == 0.5
    assert q.median_seconds == 10.0


def test_the_chi_square_tests_equal_scipys():
    first, second = Counter({0: 30, 1: 12, 2: 5, 3: 3}), Counter({0: 8, 1: 9, 2: 12, 3: 11})
    table = [[first[g] for g in range(4)], [second[g] for g in range(4)]]
    expected = chi2_contingency(table, correction=False).pvalue
    assert chi2_homogeneity(first, second) == pytest.approx(expected, rel=1e-10)
    for x, df in ((0.3, 1), (3.84, 1), (7.8, 3), (40.0, 3), (250.0, 9)):
        assert chi2_sf(x, df) == pytest.approx(chi2.sf(x, df), rel=1e-10)


def _simulated(seed, *, n=300, change=None, kind=None, gold_every=0):
    """An assessor whose grades follow a steady distribution, then (from `change`) a shifted one ("drift") or
    uniform answers ("random"); every `gold_every`-th item is gold, answered right 85% of the time while steady."""
    rng = random.Random(seed)
    steady, shifted = [0.5, 0.25, 0.15, 0.10], [0.1, 0.2, 0.3, 0.4]
    labels, gold = [], {}
    for i in range(n):
        changed = change is not None and i >= change
        if gold_every and i % gold_every == 0:
            truth = rng.choices(range(4), steady)[0]
            gold[("1", f"d{i}")] = truth
            grade = rng.randrange(4) if (changed and kind == "random") or rng.random() >= 0.85 else truth
        else:
            weights = (shifted if kind == "drift" else [0.25] * 4) if changed else steady
            grade = rng.choices(range(4), weights)[0]
        labels.append(_label(i, grade))
    return labels, gold


def _judgments_until_flagged(labels, gold, change) -> int | None:
    """As the judgments arrive, ten at a time: how many after the change before it is flagged near where it began."""
    for end in range(change + 10, len(labels) + 1, 10):
        flags = assessor_quality(labels[:end], gold=gold).flags
        if any(f.kind in ("drift", "random") and f.start >= change - 20 for f in flags):
            return end - change
    return None


@pytest.mark.parametrize(
    ("kind", "gold_every", "within", "share"),
    [("drift", 0, 40, 0.95), ("random", 5, 60, 0.9), ("random", 0, 100, 0.85)],
)
def test_a_drifting_or_random_assessor_is_flagged_within_a_stated_number_of_judgments(kind, gold_every, within, share):
    seeds = range(60)
    delays = [
        _judgments_until_flagged(*_simulated(s, change=100, kind=kind, gold_every=gold_every), 100) for s in seeds
    ]
    found = sum(d is not None and d <= within for d in delays)
    assert found / len(seeds) >= share, delays


@pytest.mark.slow
def test_a_steady_assessor_is_flagged_no_more_often_than_the_tests_false_positive_rate():
    seeds = range(400)
    flagged = sum(
        any(f.kind in ("drift", "random") for f in assessor_quality(_simulated(10_000 + s)[0]).flags) for s in seeds
    )
    # ALPHA is a bound (Bonferroni); 400 draws of a rate at ALPHA stay under ALPHA + 2.5 standard errors.
    assert flagged / len(seeds) <= ALPHA + 2.5 * (ALPHA * (1 - ALPHA) / len(seeds)) ** 0.5


def test_a_run_of_implausibly_fast_judgments_is_flagged_from_its_first():
    labels = [_label(i, 1, seconds=12.0) for i in range(30)]
    labels[10 : 10 + FAST_RUN] = [_label(i, 1, seconds=1.0) for i in range(10, 10 + FAST_RUN)]
    flags = assessor_quality(labels).flags
    assert [(f.kind, f.start) for f in flags] == [("fast", 10)]
    labels[12] = _label(12, 1, seconds=12.0)  # the run broken: four and one are not five in a row
    assert assessor_quality(labels).flags == []


def test_the_from_index_counts_every_label_of_the_assessor_repeats_included():
    labels, _ = _simulated(3, change=100, kind="drift")
    with_repeats = labels[:50] + [_label(900 + i, 0, docno=f"d{i}") for i in range(10)] + labels[50:]
    with_repeats = [
        Label(r.topic, r.docno, r.grade, r.assessor, f"{i:05d}", r.seconds, i) for i, r in enumerate(with_repeats)
    ]
    plain = [f.start for f in assessor_quality(labels).flags]
    shifted = [f.start for f in assessor_quality(with_repeats).flags]
    assert plain and shifted == [start + 10 for start in plain]


def test_the_command_reads_a_labels_export_and_names_a_bad_line(tmp_path, capsys):
    given = [("a", 2, "ann"), ("b", 0, "ann"), ("a", 1, "bob"), ("a", 2, "ann")]
    rows = [
        {"topic": "1", "docno": d, "grade": g, "assessor": a, "time": f"2026-01-01T10:00:0{i}", "seconds": 5}
        for i, (d, g, a) in enumerate(given)
    ]
    (tmp_path / "labels.jsonl").write_text("\n".join(json.dumps(r) for r in reversed(rows)) + "\n")
    (tmp_path / "gold").write_text("1 0 a 2\n1 0 b 1\n")
    assert main([str(tmp_path / "labels.jsonl"), "--gold", str(tmp_path / "gold"), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)["assessors"]
    assert report["ann"]["judgments"] == 2 and report["ann"]["repeats"] == 1
    assert report["ann"]["gold_accuracy"] == 0.5 and report["bob"]["gold_accuracy"] == 0.0
    assert report["ann"]["median_seconds"] == 5 and report["ann"]["flags"] == []
    (tmp_path / "bad.jsonl").write_text(json.dumps(rows[0]) + "\n" + '{"topic": "1", "docno": "x", "grade": "high"}\n')
    assert main([str(tmp_path / "bad.jsonl")]) == 2
    assert "bad.jsonl:2: field 'grade'" in capsys.readouterr().err
    done = subprocess.run([sys.executable, "-m", "judging.quality", str(tmp_path / "labels.jsonl"), "--json"],
                          cwd=ROOT, capture_output=True, text=True, timeout=60)  # fmt: skip
    assert done.returncode == 0 and json.loads(done.stdout)["assessors"]["bob"]["judgments"] == 1


def test_a_report_covers_every_assessor_in_any_input_order():
    labels = [_label(i, i % 2, assessor=name) for i in range(6) for name in ("b", "a")]
    random.Random(1).shuffle(labels)
    assert list(quality_report(labels)) == ["a", "b"]


def test_judging_one_topic_after_another_is_not_a_change_in_the_assessor():
    """Topics differ in how much of them is relevant: an assessor who judges a mostly-irrelevant topic, then a
    mostly-relevant one, has changed topic, not behaviour. The test is stratified by topic, so it does not flag."""
    flagged = 0
    for seed in range(100):
        rng = random.Random(seed)
        labels = []
        for topic in range(8):
            weights = [0.7, 0.2, 0.05, 0.05] if topic % 2 == 0 else [0.05, 0.1, 0.35, 0.5]
            for _ in range(25):
                i = len(labels)
                grade = rng.choices(range(4), weights)[0]
                labels.append(Label(str(topic), f"d{i}", grade, "ann", f"{i:05d}", 10.0, i))
        flagged += any(f.kind in ("drift", "random") for f in assessor_quality(labels).flags)
    assert flagged <= 100 * ALPHA + 5
    shifted = [Label("0", f"x{i}", 3 if i >= 60 else 0, "ann", f"{i:05d}", 10.0, i) for i in range(100)]
    assert [f.kind for f in assessor_quality(shifted).flags] == ["drift"]  # within one topic it is a change


def _ranked_topics(seed, *, assessors=("ann", "bob"), change=None):
    """Two assessors judging the same items topic by topic in rank order, where relevance falls with the rank (as
    a best-rank pool is judged); from `change` on, bob answers at random."""
    rng = random.Random(seed)
    labels = []
    for topic in range(6):
        for rank in range(30):
            share = max(0.05, 0.8 - rank / 30)
            truth = 3 if rng.random() < share / 2 else 2 if rng.random() < share else 0
            for name in assessors:
                i = sum(1 for label in labels if label.assessor == name)
                grade = truth if rng.random() < 0.85 else rng.randrange(4)
                if name == "bob" and change is not None and i >= change:
                    grade = rng.randrange(4)
                labels.append(Label(str(topic), f"d{rank}", grade, name, f"{topic:02d}{rank:03d}", 10.0, len(labels)))
    return labels


def test_with_shared_items_the_yardstick_is_the_others_labels_not_the_grades_that_fall_with_rank():
    faithful = [quality_report(_ranked_topics(seed)) for seed in range(40)]
    flagged = sum(any(f.kind != "fast" for q in report.values() for f in q.flags) for report in faithful)
    assert flagged <= 40 * ALPHA + 3
    # The grades alone (no other assessor) would read the fall of relevance with the rank as a change:
    alone = [assessor_quality([r for r in _ranked_topics(seed) if r.assessor == "ann"]) for seed in range(40)]
    assert sum(any(f.kind == "drift" for f in q.flags) for q in alone) > 40 * ALPHA + 3
    drifting = [quality_report(_ranked_topics(seed, change=90))["bob"].flags for seed in range(40)]
    caught = [flags for flags in drifting if any(f.kind == "drift" and 70 <= f.start <= 130 for f in flags)]
    assert len(caught) >= 36


def test_agreement_blocks_worked_by_hand():
    from judging.quality.core import agreement_blocks

    labels = [_label(0, 1, docno="a"), _label(1, 0, docno="b"), _label(2, 2, docno="c"), _label(3, 2, docno="a"),
              _label(4, 3, docno="d"), _label(5, 0, docno="e")]  # fmt: skip
    gold = {("1", "a"): 1}
    others = {("1", "a"): 0, ("1", "b"): 1, ("1", "c"): 2, ("1", "e"): 0}
    # First labels a, b, c, d, e (the second a is a repeat, at position 3). Blocks of 2: (a, b): a agrees with gold
    # (which wins over the others), b does not: 1/2, from 0; (c, d): c agrees, d has no yardstick: 1/1, from 2;
    # (e): 1/1, from 5.
    assert agreement_blocks(labels, gold=gold, others=others, window=2) == [(0, 0.5), (2, 1.0), (5, 1.0)]
