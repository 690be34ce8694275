"""trec_eval's preference measures (`-R prefs`, `-R qrels_prefs`): hand-worked examples for each rule of
`form_prefs_counts.c` and `m_prefs_*.c`, a property test against preferences counted by brute force from graded
qrels, and the command line's output, -c, errors and JSON."""

from __future__ import annotations

import itertools
import json
import random

import pytest

from evaluation.cli.trec_eval import main
from measures.preferences import MEASURES, PrefLine, prefs_values, read_prefs, topic_prefs


def lines(*rows, jg="u1") -> list[PrefLine]:
    return [PrefLine(jg, jsg, docno, float(level)) for jsg, docno, level in rows]


def values(prefs, ranking) -> dict[str, float]:
    return prefs_values(topic_prefs(prefs, ranking))


def test_one_sub_group_prefers_every_higher_level_to_every_lower_one():
    # get_prefs.c's example: 13 preferences (5 with d4 preferred, 4 with d1, 2 each with d2 and d6).
    prefs = lines(*[("s1", d, level) for d, level in [("d1", 3), ("d2", 2), ("d3", 0), ("d4", 6), ("d5", 0),
                                                        ("d6", 2)]])  # fmt: skip
    perfect = values(prefs, ["d4", "d1", "d2", "d6", "d3", "d5"])
    assert (perfect["prefs_num_prefs_poss"], perfect["prefs_num_prefs_ful"]) == (13, 13)
    assert perfect["prefs_simp"] == perfect["prefs_pair"] == perfect["prefs_avgjg_Rnonrel"] == 1.0
    reversed_ = values(prefs, ["d5", "d3", "d6", "d2", "d1", "d4"])
    assert (reversed_["prefs_num_prefs_ful"], reversed_["prefs_simp"]) == (0, 0.0)


def test_sub_groups_make_a_partial_order_closed_under_transitivity():
    # get_prefs.c's example: 1>2, 1>3, 2>3 (s1) and 2>4 (s2) give 1>4 too: 5 preferences, none between 3 and 4.
    prefs = lines(("s1", "d1", 3), ("s1", "d2", 2), ("s1", "d3", 1), ("s2", "d2", 5), ("s2", "d4", 4))
    # Ranked d3, d1; d2 and d4 not retrieved. 1>3 fails among the retrieved; 1>2 and 1>4 are fulfilled by
    # implication (1 retrieved, the other not); 2>3 fails by implication; 2>4 occurs nowhere.
    got = values(prefs, ["d3", "d1"])
    assert got["prefs_num_prefs_poss"] == 5 and got["prefs_num_prefs_ful"] == 2
    assert got["prefs_num_prefs_ful_ret"] == 0
    assert got["prefs_simp"] == pytest.approx(2 / 5)
    assert got["prefs_simp_ret"] == 0.0  # 0 of the 1 between retrieved documents
    assert got["prefs_simp_imp"] == pytest.approx(2 / 4)  # the pair that occurs nowhere left out
    # All four documents are relevant (R = 4, N = 0): Rnonrel adds R * (R - N) = 2 * 4 fulfilled and 4 * 4 possible.
    assert got["prefs_avgjg_Rnonrel"] == pytest.approx((2 + 2 * 4) / (5 + 4 * 4))
    assert got["prefs_avgjg_Rnonrel_ret"] == pytest.approx((0 + 2 * 2) / (1 + 4 * 2))


def test_judgment_groups_weigh_equally_in_avgjg_and_pairs_share_disagreements():
    prefs = lines(("s", "a", 2), ("s", "b", 1), ("s", "c", 0), jg="many") + lines(
        ("s", "b", 2), ("s", "a", 1), jg="few"
    )
    got = values(prefs, ["a", "b", "c"])
    # "many": 3 preferences, all fulfilled; "few": b > a, not fulfilled.
    assert got["prefs_simp"] == pytest.approx(3 / 4)
    assert got["prefs_avgjg"] == pytest.approx((1.0 + 0.0) / 2)
    # Pairs: (a, b) has one preference each way (share 1/2), (a, c) and (b, c) one fulfilled each.
    assert got["prefs_pair"] == pytest.approx((0.5 + 1 + 1) / 3)


def test_rnonrel_recounts_with_the_first_r_non_relevant_documents_as_trec_eval_loops():
    # One relevant document (R = 1) and three non-relevant (N = 3): the lowest class is cut to its first R members by
    # rank, and trec_eval's loop pairs every class with them, the lowest class itself included.
    prefs = lines(("s", "d1", 1), ("s", "d2", 0), ("s", "d3", 0), ("s", "d4", 0))
    # Ranks: d1 0, d2 1, d3 2 retrieved; d4 3. Kept: d2. Pairs: d1 > d2 fulfilled; d2, d3, d4 against d2 are not.
    assert values(prefs, ["d1", "d2", "d3"])["prefs_avgjg_Rnonrel"] == pytest.approx(1 / 4)
    # A group with no relevant document is 0 / 0 there, which trec_eval reports as 0.
    assert values(lines(("s", "x", 0), ("s", "y", 0)), ["x"])["prefs_avgjg_Rnonrel"] == 0.0


def test_tied_scores_are_read_in_docno_order_for_preferences():
    from measures.preferences import ranking_of

    assert ranking_of({"b": 1.0, "a": 1.0, "c": 2.0}) == ["c", "a", "b"]
    assert ranking_of({"b": 1.0, "a": 1.0, "c": 2.0}, depth=2) == ["c", "a"]


@pytest.mark.parametrize(
    ("prefs", "message"),
    [
        (lines(("s1", "a", 2), ("s1", "b", 1), ("s2", "b", 2), ("s2", "a", 1)), "contradict"),
        (lines(("s1", "a", 0), ("s1", "b", 1), ("s2", "a", 2), ("s2", "c", 1)), "both 0 and non-0"),
        (lines(("s1", "a", 2), ("s1", "a", 1)), "two rel_levels"),
    ],
)
def test_an_inconsistent_group_is_refused_by_name(prefs, message):
    with pytest.raises(ValueError, match=message) as error:
        topic_prefs(prefs, ["a"], topic="7")
    assert "topic '7'" in str(error.value) and "group 'u1'" in str(error.value)


def brute_force(grades: dict[str, int], ranking: list[str]) -> dict[str, float]:
    """Preferences of a graded qrels topic counted pair by pair, as the definitions say."""
    position = {d: i for i, d in enumerate(ranking)}
    ful = ful_ret = poss = poss_ret = poss_imp = ful_imp = 0
    for a, b in itertools.permutations(grades, 2):
        if grades[a] <= grades[b]:
            continue
        poss += 1
        ra, rb = a in position, b in position
        if ra and rb:
            poss_ret += 1
            hit = position[a] < position[b]
            ful_ret += hit
            ful += hit
        elif ra or rb:
            poss_imp += 1
            ful_imp += ra
            ful += ra
    return {
        "prefs_num_prefs_poss": poss,
        "prefs_num_prefs_ful": ful,
        "prefs_num_prefs_ful_ret": ful_ret,
        "prefs_simp": ful / poss if poss else 0.0,
        "prefs_simp_ret": ful_ret / poss_ret if poss_ret else 0.0,
        "prefs_simp_imp": (ful_ret + ful_imp) / (poss_ret + poss_imp) if poss_ret + poss_imp else 0.0,
    }


@pytest.mark.parametrize("seed", range(40))
def test_qrels_read_as_preferences_count_what_the_graded_labels_imply(seed, tmp_path):
    rng = random.Random(seed)
    docnos = [f"d{i}" for i in range(rng.randint(1, 25))]
    grades = {d: rng.choice([0, 0, 1, 2, 3]) for d in docnos}
    qrels = tmp_path / "qrels"
    qrels.write_text("".join(f"q 0 {d} {g}\n" for d, g in grades.items()))
    pool = docnos + [f"x{i}" for i in range(5)]  # some unjudged documents retrieved
    scores = {d: float(rng.randint(0, 6)) for d in rng.sample(pool, rng.randint(0, len(pool)))}  # ties
    from measures.preferences import ranking_of, read_qrels_prefs

    got = prefs_values(topic_prefs(read_qrels_prefs(qrels)["q"], ranking_of(scores)))
    expected = brute_force(grades, ranking_of(scores))
    assert {k: got[k] for k in expected} == pytest.approx(expected)
    assert got["prefs_pair"] == pytest.approx(got["prefs_simp"])  # one group: one preference per pair
    assert got["prefs_avgjg"] == pytest.approx(got["prefs_simp"])


PREFS = """\
# two topics; topic 3 has no results in the run
1 u1 s1 d1 3
1 u1 s1 d2 2
1 u1 s1 d3 0
2 u1 s1 d1 1
2 u1 s1 d2 0
3 u1 s1 d9 1
3 u1 s1 d8 0
"""
RUN = "1 Q0 d2 1 3.0 tag\n1 Q0 d1 2 2.0 tag\n2 Q0 d1 1 1.0 tag\n"


@pytest.fixture
def files(tmp_path):
    (tmp_path / "prefs").write_text(PREFS)
    (tmp_path / "run").write_text(RUN)
    return tmp_path / "prefs", tmp_path / "run"


def test_the_command_prints_as_trec_eval_prints(files, capsys):
    prefs, run = files
    assert main(["-R", "prefs", "-m", "all_prefs", "-q", str(prefs), str(run)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[:3] == ["prefs_num_prefs_poss  \t1\t3", "prefs_num_prefs_ful   \t1\t2", "prefs_num_prefs_ful_ret\t1\t0"]
    assert out[3] == "prefs_simp            \t1\t0.6667"
    assert [line.split("\t")[0].strip() for line in out[28:]] == ["runid", "num_q", *MEASURES]
    assert out[28:31] == ["runid                 \tall\ttag", "num_q                 \tall\t2",
                          "prefs_num_prefs_poss  \tall\t4"]  # fmt: skip
    # Topic 2's d1 > d2 is fulfilled by implication only (d2 not retrieved): none among the retrieved.
    assert out[31:33] == ["prefs_num_prefs_ful   \tall\t3", "prefs_num_prefs_ful_ret\tall\t0"]


def test_complete_averages_over_every_topic_with_preferences(files, capsys):
    prefs, run = files
    assert main(["-R", "prefs", "-m", "prefs_simp", "-m", "prefs_num_prefs_poss", "-m", "num_q", "-c",
                 str(prefs), str(run)]) == 0  # fmt: skip
    out = dict(line.split("\tall\t") for line in capsys.readouterr().out.splitlines())
    assert out["num_q                 "] == "3"
    assert out["prefs_num_prefs_poss  "] == "5"  # topic 3's one preference occurs nowhere: possible, not fulfilled
    assert out["prefs_simp            "] == f"{(2 / 3 + 1.0 + 0.0) / 3:6.4f}"


def test_json_gives_every_topic_and_the_summary(files, capsys):
    prefs, run = files
    assert main(["-R", "prefs", "-m", "prefs", "--json", str(prefs), str(run)]) == 0
    payload = json.loads(capsys.readouterr().out)
    assert payload["results"]["tag"]["2"]["prefs_simp"] == 1.0
    assert payload["aggregates"]["tag"]["num_q"] == 2
    assert set(payload["results"]["tag"]["1"]) == set(MEASURES[:6])


def test_bad_input_is_named_by_file_line_and_field(tmp_path, files, capsys):
    _, run = files
    bad = tmp_path / "bad"
    bad.write_text("1 u1 s1 d1 3\n1 u1 s1 d2 high\n")
    assert main(["-R", "prefs", str(bad), str(run)]) == 2
    assert f"{bad}:2" in capsys.readouterr().err
    assert main(["-R", "prefs", "-m", "map", str(files[0]), str(run)]) == 2
    assert "cannot be computed from preferences" in capsys.readouterr().err
    with pytest.raises(Exception, match="rel_level"):
        read_prefs(bad)


@pytest.mark.parametrize("ranking, fulfilled", [(["d#1", "d2", "d3"], 4), (["d3", "d2", "d#1"], 0)])
def test_prefs_lines_as_trec_evals_own_tests_write_them(tmp_path, capsys, ranking, fulfilled):
    """Comment lines, tabs and runs of spaces mixed, a '#' inside a docno, rel_levels that are not whole: user u1's
    one sub-group orders d#1 (2.5) > d2 (1) > d3 (0), three preferences; u2 adds d2 (6.5) > d3 (5.5)."""
    (tmp_path / "prefs").write_text(
        "# judged by two users\nt1  u1  s1  d#1\t 2.5\nt1  u1  s1  d2   1\nt1\tu1\ts1\td3\t0\n"
        "# between lines\nt1  u2  s1  d2   6.5\nt1  u2  s1  d3   5.5\n"
    )
    (tmp_path / "run").write_text("".join(f"t1 Q0 {d} {i} {3 - i} r\n" for i, d in enumerate(ranking)))
    assert main(["-R", "prefs", "-m", "prefs_num_prefs_poss", "-m", "prefs_num_prefs_ful", "-m", "prefs_simp",
                 str(tmp_path / "prefs"), str(tmp_path / "run")]) == 0  # fmt: skip
    out = capsys.readouterr().out.splitlines()
    assert out == [
        "prefs_num_prefs_poss  \tall\t4",
        f"prefs_num_prefs_ful   \tall\t{fulfilled}",
        f"prefs_simp            \tall\t{fulfilled / 4:.4f}",
    ]
