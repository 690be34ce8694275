"""trec_eval 10.0's measures that pytrec_eval (9.0.x) lacks, worked by hand: rbp, rbp_resid, unj, gain maps,
utility's coefficients, and how trec_eval reads and prints parameters."""

import math

import pytest

from measures import MeasureNameError, TrecReader, evaluate, output_name, parse_measures
from measures.trec_names import printed_name

# One topic; the run ranks a (2), x (not in the qrels), b (0), u (pooled, unjudged), c (1), in that order.
QRELS = {"q": {"a": 2, "b": 0, "c": 1, "u": -1, "d": 3}}
RUN = {"q": {"a": 5.0, "x": 4.0, "b": 3.0, "u": 2.0, "c": 1.0}}


def _value(name: str, qrels=QRELS, run=RUN, **options) -> float:
    reader = TrecReader()
    result = evaluate(reader.qrels(qrels), [reader.run("r", run)], parse_measures(name), **options)
    return result.value("r", reader.topics.get("q"), result.measures[0])


def test_rbp_rescales_graded_gains_to_one_and_weights_rank_i_by_p_to_the_i_minus_1():
    # gains 0..3 lie outside [0, 1], so each becomes g / 3: a 2/3 at rank 1, c 1/3 at rank 5
    expected = (1 - 0.9) * (2 / 3 * 1.0 + 1 / 3 * 0.9**4)
    assert _value("rbp") == pytest.approx(expected, abs=1e-15)
    assert _value("rbp.p=0.5") == pytest.approx(0.5 * (2 / 3 + 1 / 3 * 0.5**4), abs=1e-15)


def test_rbp_keeps_binary_gains_and_takes_a_gain_map():
    binary = {"q": {"a": 1, "b": 0, "c": 1}}
    assert _value("rbp", binary) == pytest.approx(0.1 * (1 + 0.9**4), abs=1e-15)
    # with 3=0 the table is {0: 0, 1: 1, 2: 2, 3: 0}: rescaled by 2, a gains 1 and c one half
    assert _value("rbp.3=0", {"q": {**QRELS["q"]}}) == pytest.approx(0.1 * (1 + 0.5 * 0.9**4), abs=1e-15)


def test_rbp_resid_is_the_weight_of_unjudged_ranks_and_the_tail():
    # x (rank 2) and u (rank 4) are unjudged; the tail beyond rank 5 weighs 0.9^5
    assert _value("rbp_resid") == pytest.approx(0.9**5 + 0.1 * (0.9 + 0.9**3), abs=1e-15)
    judged_only = {"q": {"a": 5.0, "b": 3.0, "c": 1.0}}
    assert _value("rbp_resid", run=judged_only) == 0.0  # trec_eval reports 0 when nothing retrieved is unjudged


def test_unj_counts_unjudged_in_the_top_k_over_k_even_past_the_ranking():
    assert _value("unj.2") == 0.5
    assert _value("unj.4") == 0.5
    assert _value("unj.20") == 2 / 20


def test_ndcg_with_a_gain_map_uses_it_for_the_ranking_and_the_ideal():
    # gains: level 1 -> 3, level 2 -> 9, level 3 stays 3; ideal: d? no: 9 (a), 3 (d), 3 (c)
    dcg = 9 / math.log2(2) + 3 / math.log2(6)
    ideal = 9 / math.log2(2) + 3 / math.log2(3) + 3 / math.log2(4)
    assert _value("ndcg.1=3,2=9") == pytest.approx(dcg / ideal, abs=1e-15)
    assert _value("nDCG(gains='1=3,2=9')") == _value("ndcg.1=3,2=9")


def test_a_gain_map_can_reward_a_document_outside_the_qrels():
    dcg = 2 / math.log2(2) + 5 / math.log2(3) + 1 / math.log2(6)
    ideal = 3 / math.log2(2) + 2 / math.log2(3) + 1 / math.log2(4)
    assert _value("ndcg.-1=5") == pytest.approx(dcg / ideal, abs=1e-15)


def test_utility_weighs_the_contingency_table_with_the_four_coefficients():
    # relevant retrieved: a, c (2); non-relevant retrieved: x, b, u (3); relevant missed: d (1)
    assert _value("utility") == 2 - 3
    assert _value("utility.2,-1,0.5,0") == 2 * 2 - 3 + 0.5
    # the fourth weighs the non-relevant not retrieved, which needs the collection size: 100 - 2 - 3 - 1
    assert _value("utility.0,0,0,1", collection_size=100) == 94


def test_eleven_point_average_takes_its_recall_levels():
    levels = [_value(f"iprec_at_recall.{r}") for r in (0.25, 0.5, 0.75)]
    assert _value("11pt_avg.0.25,0.5,0.75") == pytest.approx(sum(reversed(levels)) / 3, abs=1e-15)


@pytest.mark.parametrize(
    ("name", "printed"),
    [
        ("P.5,7,3", ["P_3", "P_5", "P_7"]),
        ("ndcg_cut.10,20,23.4", ["ndcg_cut_10", "ndcg_cut_20", "ndcg_cut_23"]),
        ("iprec_at_recall..10,.20", ["iprec_at_recall_0.10", "iprec_at_recall_0.20"]),
        ("Rprec_mult.5.0,0.2", ["Rprec_mult_0.20", "Rprec_mult_5.00"]),
        ("11pt_avg..25,.5,.75", ["11pt_avg_.25,.5,.75"]),
        ("utility.2,-1,0,0", ["utility_2,-1,0,0"]),
        ("ndcg.1=3,2=9,4=4.5", ["ndcg_1=3,2=9,4=4.5"]),
        ("rbp.p=0.95", ["rbp_p=0.95"]),
        ("set_F.0.5", ["set_F_0.5"]),
        ("unj", ["unj_5", "unj_10", "unj_20"]),
    ],
)
def test_parameters_are_read_and_printed_as_trec_eval_10_does(name, printed):
    assert [printed_name(m, 10) for m in parse_measures(name)] == printed


def test_trec_eval_9_prints_a_measure_with_numbers_under_its_bare_name():
    assert printed_name(parse_measures("set_F.0.5")[0], 9) == "set_F"
    assert printed_name(parse_measures("P.5")[0], 9) == "P_5"


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("P.5,5", "duplicate cutoffs"),
        ("P.0", "positive"),
        ("P.x", "not a number"),
        ("utility.1,2,3", "four coefficients"),
        ("ndcg.1=3,=", "malformed"),
        ("ndcg.foo=1", "not a relevance level"),
        ("map.5", "takes no parameters"),
        ("runid", "not a measure"),
        ("nDCG(dcg='jk',gains='1=2')", "log2"),
    ],
)
def test_malformed_parameters_get_a_clear_error(name, message):
    with pytest.raises(MeasureNameError, match=message):
        parse_measures(name)


def test_new_families_are_measures_collections_can_store_by_name():
    for name in ["Unjudged@10", "RprecMult@0.5", "Utility", "nDCGRel", "Rndcg", "G", "binG", "TrecRBP", "TrecRBPResid"]:
        (measure,) = parse_measures(name)
        assert str(measure) == name
    assert output_name(parse_measures("Unjudged@10")[0]) == "unj_10"
