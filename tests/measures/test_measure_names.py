"""One parser for ir_measures-style and trec_eval-style measure names."""

import pytest

from measures import MeasureNameError, output_name, parse_measure, parse_measures


@pytest.mark.parametrize(
    ("name", "canonical"),
    [
        ("nDCG@10", "nDCG@10"),
        ("ndcg_cut.10", "nDCG@10"),
        ("P(rel=2)@5", "P(rel=2)@5"),
        ("P.5", "P@5"),
        ("map", "AP"),
        ("AP", "AP"),
        ("recip_rank", "RR"),
        ("R@1000", "R@1000"),
        ("recall.1000", "R@1000"),
        ("Bpref", "Bpref"),
        ("bpref", "Bpref"),
        ("ERR@20", "ERR@20"),
        ("Judged@10", "Judged@10"),
        ("SetF(beta=0.5)", "SetF(beta=0.5)"),
        ("set_F", "TrecSetF"),
        ("nDCG(dcg='exp-log2')@10", "nDCG(dcg='exp-log2')@10"),
        ("P(rel=1)@5", "P@5"),
        ("iprec_at_recall.0.5", "IPrec@0.5"),
        ("map_cut.100", "AP@100"),
        ("gm_map", "GMAP"),
    ],
)
def test_names_parse_to_one_canonical_measure(name, canonical):
    assert str(parse_measure(name)) == canonical


def test_trec_eval_family_without_cutoff_expands_to_its_default_cutoffs():
    assert [str(m) for m in parse_measures("P")] == [f"P@{k}" for k in (5, 10, 15, 20, 30, 100, 200, 500, 1000)]
    assert [str(m) for m in parse_measures("P.5,10")] == ["P@5", "P@10"]


def test_trec_output_names_are_trec_evals():
    assert output_name(parse_measure("nDCG@10")) == "ndcg_cut_10"
    assert output_name(parse_measure("IPrec@0.1")) == "iprec_at_recall_0.10"
    assert output_name(parse_measure("AP@5")) == "map_cut_5"


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("nDGC@10", "unknown measure"),
        ("P", "denotes 9 measures"),
        ("P@0", "positive integer"),
        ("AP(foo=1)", "no parameter"),
        ("nDCG(dcg='cubic')@10", "must be one of"),
        ("Bpref@10", "takes no cutoff"),
        ("IPrec@2", "between 0 and 1"),
    ],
)
def test_bad_names_get_a_clear_error(name, message):
    with pytest.raises(MeasureNameError, match=message):
        parse_measures(name) if name != "P" else parse_measure("P")
