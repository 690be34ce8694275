"""`python -m evaluation -R qrels_jg`: trec_eval's judgment groups. Hand-worked values and output lines; on generated
collections, P_avgjg and map_avgjg equal the mean over each topic's groups of P and map computed by trec_eval
itself (pytrec_eval) against each group's qrels alone; malformed files and measures that groups cannot give are
refused by name."""

from __future__ import annotations

import random

import pytest
import pytrec_eval

from evaluation.cli.trec_eval import main
from tests.evaluation.generated import generated_collection, run_lines


def _write(tmp_path, name, lines):
    path = tmp_path / name
    path.write_text("\n".join(lines) + "\n")
    return str(path)


def test_comment_lines_are_skipped_as_trec_eval_10_skips_them(tmp_path, capsys):
    """As trec_eval's own test file qrels.comments.123: a '# a comment' line among the `qid jg docno rel` lines."""
    plain = _write(tmp_path, "plain", ["1 ann a 1", "1 ann b 0", "1 bob a 0", "1 bob b 1"])
    commented = _write(tmp_path, "commented", ["# a comment", "1 ann a 1", "1 ann b 0", "   # indented, 4 words",
                                               "1 bob a 0", "1 bob b 1 ", "#"])  # fmt: skip
    run = _write(tmp_path, "run", ["1 Q0 a 1 3 r", "1 Q0 b 2 2 r"])
    assert main(["-R", "qrels_jg", "-q", plain, run]) == 0
    expected = capsys.readouterr().out
    assert main(["-R", "qrels_jg", "-q", commented, run]) == 0
    assert capsys.readouterr().out == expected


def test_two_groups_of_one_topic_worked_by_hand(tmp_path, capsys):
    qrels = _write(tmp_path, "jg", ["1 ann a 1", "1 ann b 0", "1 ann c 1", "1 bob a 0", "1 bob b 1",
                                    "2 ann d 1", "2 ann e 0"])  # fmt: skip
    run = _write(tmp_path, "run", ["1 Q0 a 1 3 r", "1 Q0 b 2 2 r", "1 Q0 c 3 1 r", "2 Q0 e 1 2 r", "2 Q0 d 2 1 r"])
    assert main(["-R", "qrels_jg", "-q", "-m", "qrels_jg", "-m", "P_avgjg.1,2", qrels, run]) == 0
    lines = capsys.readouterr().out.splitlines()
    # Topic 1 ranks a, b, c. ann (a, c relevant): AP (1 + 2/3) / 2 = 5/6, P@1 1, P@2 1/2; bob (b): AP 1/2, P@1 0,
    # P@2 1/2. Averaged over the two groups: map 2/3, P@1 1/2, P@2 1/2. Rprec_mult 0.2: ann's cutoff
    # (long)(0.2 * 2 + 0.9) = 1 -> 1, bob's (long)(0.2 + 0.9) = 1 -> 0: 1/2. Topic 2 (ann alone): e, d: AP 1/2.
    assert f"{'map_avgjg':<22}\t1\t0.6667" in lines and f"{'map_avgjg':<22}\t2\t0.5000" in lines
    assert f"{'P_avgjg_1':<22}\t1\t0.5000" in lines and f"{'P_avgjg_2':<22}\t1\t0.5000" in lines
    assert f"{'Rprec_mult_avgjg_0.20':<22}\t1\t0.5000" in lines
    summary = [line for line in lines if "\tall\t" in line]
    assert summary[:3] == [f"{'runid':<22}\tall\tr", f"{'num_q':<22}\tall\t2", f"{'map_avgjg':<22}\tall\t0.5833"]
    assert [line.split("\t")[0].strip() for line in summary][3:5] == ["P_avgjg_1", "P_avgjg_2"]  # the first given


@pytest.mark.parametrize("seed", range(4))
def test_averaged_measures_equal_trec_evals_per_group_means(seed, tmp_path, capsys):
    qrels, runs = generated_collection(seed, topics=8, runs=1)
    rng = random.Random(seed)
    groups: dict[str, dict[str, dict[str, int]]] = {}
    for topic, labels in qrels.items():
        for group in rng.sample(["ann", "bob", "cyd"], rng.randint(1, 3)):
            groups.setdefault(topic, {})[group] = {d: max(0, g + rng.choice([-1, 0, 0, 1])) for d, g in labels.items()}
    lines = [f"{t} {g} {d} {grade}" for t, by_group in groups.items() for g, docs in by_group.items()
             for d, grade in docs.items()]  # fmt: skip
    tag, run = next(iter(runs.items()))
    qrels_path = _write(tmp_path, "jg", lines)
    run_path = _write(tmp_path, "run", run_lines(tag, run))
    assert main(["-R", "qrels_jg", "-q", "-m", "map_avgjg", "-m", "P_avgjg.5,10", qrels_path, run_path]) == 0
    ours = {}
    for line in capsys.readouterr().out.splitlines():
        name, topic, value = (part.strip() for part in line.split("\t"))
        if topic != "all":
            ours[(name, topic)] = float(value)
    for topic, by_group in groups.items():
        if topic not in run:
            continue
        scores = [pytrec_eval.RelevanceEvaluator({topic: docs}, {"map", "P.5,10"}).evaluate({topic: run[topic]})[topic]
                  for docs in by_group.values()]  # fmt: skip
        for name, key in (("map_avgjg", "map"), ("P_avgjg_5", "P_5"), ("P_avgjg_10", "P_10")):
            expected = sum(s[key] for s in scores) / len(scores)
            assert ours[(name, topic)] == pytest.approx(expected, abs=5e-5), (topic, name)  # printed to 4 places


@pytest.mark.parametrize(
    ("lines", "arguments", "message"),
    [
        (["1 ann a 1 extra"], [], "jg:1: expected 4 columns"),
        (["1 ann a 1", "1 ann a 0"], [], "jg:2: field 'docno': document 'a' judged twice by group 'ann'"),
        (["1 ann a high"], [], "jg:1: field 'rel': expected an integer"),
        (["1 ann a 1"], ["-m", "P.5"], "cannot be computed from judgment groups"),
    ],
)
def test_what_judgment_groups_cannot_be_is_refused_by_name(tmp_path, capsys, lines, arguments, message):
    qrels = _write(tmp_path, "jg", lines)
    run = _write(tmp_path, "run", ["1 Q0 a 1 3 r"])
    assert main(["-R", "qrels_jg", *arguments, qrels, run]) == 2
    assert message in capsys.readouterr().err
