"""`python -m evaluation`: trec_eval's text output, JSON at full precision, exit status 2 on bad input."""

import json
import math
import subprocess
import sys

import pytest
import pytrec_eval

from evaluation.cli.trec_eval import main
from tests.evaluation.generated import generated_collection, qrels_lines, run_lines


@pytest.fixture
def files(tmp_path):
    qrels, runs = generated_collection(2)
    (tmp_path / "qrels").write_text("\n".join(qrels_lines(qrels)) + "\n")
    for tag, run in runs.items():
        (tmp_path / tag).write_text("\n".join(run_lines(tag, run)) + "\n")
    return tmp_path, qrels, runs


def test_text_output_is_trec_evals_format_with_an_all_row(files, capsys):
    folder, qrels, runs = files
    assert main([str(folder / "qrels"), str(folder / "run0"), "-m", "map", "-m", "P.5", "-q"]) == 0
    lines = capsys.readouterr().out.splitlines()
    reference = pytrec_eval.RelevanceEvaluator(qrels, {"map", "P.5"}).evaluate(runs["run0"])
    per_topic = {(m.strip(), t): v for m, t, v in (line.split("\t") for line in lines) if t != "all"}
    assert per_topic[("map", "q3")] == f"{reference['q3']['map']:.4f}"
    # like trec_eval, runid and num_q are printed only when asked for (the default, official, includes them)
    assert [line.split("\t")[0].strip() for line in lines if "\tall\t" in line] == ["map", "P_5"]


def test_json_output_keys_measures_as_given_at_full_precision(files, capsys):
    folder, qrels, runs = files
    assert (
        main(
            [str(folder / "qrels"), str(folder / "run0"), str(folder / "run1"), "-m", "nDCG@10", "-m", "map", "--json"]
        )
        == 0
    )
    payload = json.loads(capsys.readouterr().out)
    reference = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut.10"}).evaluate(runs["run1"])
    assert set(payload["results"]) == {"run0", "run1"}
    assert payload["results"]["run1"]["q3"]["nDCG@10"] == pytest.approx(reference["q3"]["ndcg_cut_10"], abs=1e-12)
    assert set(payload["aggregates"]["run0"]) == {"nDCG@10", "map"}


def test_malformed_run_exits_2_naming_file_and_line(tmp_path):
    (tmp_path / "qrels").write_text("1 0 a 1\n")
    (tmp_path / "run").write_text("1 Q0 a 1 1.0 t\n1 Q0 b 2 oops t\n")
    result = subprocess.run(
        [sys.executable, "-m", "evaluation", str(tmp_path / "qrels"), str(tmp_path / "run")],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 2
    assert f"{tmp_path / 'run'}:2: field 'score'" in result.stderr


def test_unknown_measure_exits_2(files, capsys):
    folder, _, _ = files
    assert main([str(folder / "qrels"), str(folder / "run0"), "-m", "nDGC@10"]) == 2
    assert "unknown measure" in capsys.readouterr().err


def test_trec_eval_9_gives_pytrec_evals_recall_levels_and_10_is_the_default(tmp_path, capsys):
    # One topic, R = 6, relevant at ranks 1, 2, 4, 6, 7, 8 of 10: recall 0.4 needs 3 relevant in 9.0.x, 2 in 10.0.
    relevant = {1, 2, 4, 6, 7, 8}
    (tmp_path / "qrels").write_text("".join(f"1 0 d{r} {int(r in relevant)}\n" for r in range(1, 11)))
    (tmp_path / "run").write_text("".join(f"1 Q0 d{r} {r} {10 - r} t\n" for r in range(1, 11)))
    arguments = [str(tmp_path / "qrels"), str(tmp_path / "run"), "-m", "iprec_at_recall.0.4", "--json"]
    assert main(arguments) == 0
    assert json.loads(capsys.readouterr().out)["aggregates"]["t"]["iprec_at_recall.0.4"] == 1.0
    assert main([*arguments, "--trec-eval", "9"]) == 0
    ours = json.loads(capsys.readouterr().out)["aggregates"]["t"]["iprec_at_recall.0.4"]
    with open(tmp_path / "qrels") as qrels, open(tmp_path / "run") as run:
        evaluator = pytrec_eval.RelevanceEvaluator(pytrec_eval.parse_qrel(qrels), {"iprec_at_recall"})
        assert ours == evaluator.evaluate(pytrec_eval.parse_run(run))["1"]["iprec_at_recall_0.40"] == 0.75


def _trec_eval_text(qrels, run, tag):
    """trec_eval's -q output for its official measures, written from pytrec_eval's (trec_eval 9.0.x's) values in
    trec_eval's printf formats: "%-22s\\t%s\\t%6.4f" (or %ld for counts), topics in name order, then the summary."""
    names = ["num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref", "recip_rank"]
    levels = [f"iprec_at_recall_{r / 10:.2f}" for r in range(11)]
    cutoffs = [f"P_{k}" for k in (5, 10, 15, 20, 30, 100, 200, 500, 1000)]
    order = names + levels + cutoffs
    reference = pytrec_eval.RelevanceEvaluator(qrels, {"official"}).evaluate(run)
    counts = {"num_ret", "num_rel", "num_rel_ret"}
    lines = []
    for topic in sorted(reference):
        for name in order:
            if name == "gm_map":
                continue  # printed in the summary only
            value = reference[topic][name]
            lines.append(f"{name:<22}\t{topic}\t{int(value) if name in counts else f'{value:6.4f}'}")
    lines += [f"{'runid':<22}\tall\t{tag}", f"{'num_q':<22}\tall\t{len(reference)}"]
    for name in order:
        values = [reference[t][name] for t in reference]
        if name in counts:
            text = str(int(sum(values)))
        elif name == "gm_map":
            text = f"{math.exp(sum(values) / len(values)):6.4f}"  # pytrec_eval's per-topic gm_map is the log
        else:
            text = f"{sum(values) / len(values):6.4f}"
        lines.append(f"{name:<22}\tall\t{text}")
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("seed", [2, 5, 8])
def test_text_output_is_byte_identical_to_trec_evals(tmp_path, capsys, seed):
    qrels, runs = generated_collection(seed)
    (tmp_path / "qrels").write_text("\n".join(qrels_lines(qrels)) + "\n")
    (tmp_path / "run").write_text("\n".join(run_lines("run0", runs["run0"])) + "\n")
    assert main([str(tmp_path / "qrels"), str(tmp_path / "run"), "-q", "--trec-eval", "9"]) == 0
    assert capsys.readouterr().out == _trec_eval_text(qrels, runs["run0"], "run0")


def test_measures_print_in_trec_evals_order_and_runid_only_when_asked(files, capsys):
    folder, _, _ = files
    assert main([str(folder / "qrels"), str(folder / "run0"), "-m", "P.10", "-m", "ndcg", "-m", "map"]) == 0
    assert [line.split("\t")[0].strip() for line in capsys.readouterr().out.splitlines()] == ["map", "P_10", "ndcg"]
    assert main([str(folder / "qrels"), str(folder / "run0"), "-m", "map", "-m", "runid", "-n", "-q"]) == 0
    assert "\tall\t" not in capsys.readouterr().out


def test_complete_mode_prints_topics_without_results_as_empty_rankings(tmp_path, capsys):
    (tmp_path / "qrels").write_text("1 0 a 1\n2 0 b 1\n2 0 c 0\n")
    (tmp_path / "run").write_text("1 Q0 a 1 1.0 t\n")
    assert main([str(tmp_path / "qrels"), str(tmp_path / "run"), "-c", "-q", "-m", "map", "-m", "utility"]) == 0
    rows = [line.split("\t") for line in capsys.readouterr().out.splitlines()]
    assert [(m.strip(), t, v) for m, t, v in rows] == [
        ("map", "1", "1.0000"),
        ("utility", "1", "1.0000"),
        ("map", "2", "0.0000"),
        ("utility", "2", "0.0000"),  # trec_eval zeroes utility for a missing topic (its formula would give 0 - 0)
        ("map", "all", "0.5000"),
        ("utility", "all", "0.5000"),
    ]


def test_relstring_prints_each_rankings_labels_per_topic(tmp_path, capsys):
    (tmp_path / "qrels").write_text("1 0 a 2\n1 0 b 0\n1 0 c -1\n1 0 d 12\n")
    (tmp_path / "run").write_text("1 Q0 a 1 5 t\n1 Q0 x 2 4 t\n1 Q0 b 3 3 t\n1 Q0 c 4 2 t\n1 Q0 d 5 1 t\n")
    assert main([str(tmp_path / "qrels"), str(tmp_path / "run"), "-q", "-m", "relstring.4"]) == 0
    assert capsys.readouterr().out == f"{'relstring_4':<22}\t1\t'2-0.'\n"
    assert main([str(tmp_path / "qrels"), str(tmp_path / "run"), "-q", "-m", "relstring", "-J"]) == 0
    assert capsys.readouterr().out == f"{'relstring':<22}\t1\t'20>'\n"


def test_all_trec_prints_every_family_of_trec_eval_10(files, capsys):
    folder, _, _ = files
    assert main([str(folder / "qrels"), str(folder / "run0"), "-m", "all_trec"]) == 0
    printed = {line.split("\t")[0].strip() for line in capsys.readouterr().out.splitlines()}
    for name in ["runid", "num_q", "Rprec_mult_0.20", "utility", "binG", "G", "ndcg_rel", "Rndcg", "rbp"]:
        assert name in printed
    assert {"rbp_resid", "unj_5", "unj_10", "unj_20", "set_F", "num_nonrel_judged_ret", "11pt_avg"} <= printed


def test_with_c_a_topic_missing_from_the_run_has_interpolated_precision_0_not_nan(tmp_path, capsys):
    """trec_eval ranks one non-relevant document for -c's missing topics (its 'bogus ranking'), so their
    interpolated precision starts from 0 / 1, not 0 / 0: 0.0000 per topic, and means over every qrels topic."""
    (tmp_path / "qrels").write_text("1 0 a 1\n1 0 b 0\n1 0 c 1\n2 0 a 1\n2 0 d 1\n3 0 x 1\n")
    (tmp_path / "run").write_text("1 Q0 a 1 3.0 r\n1 Q0 b 2 2.0 r\n2 Q0 d 1 1.0 r\n")
    arguments = [str(tmp_path / "qrels"), str(tmp_path / "run"), "-c", "-q"]
    assert main([*arguments, "-m", "iprec_at_recall.0", "-m", "11pt_avg"]) == 0
    lines = {tuple(line.split("\t")[:2]): line.split("\t")[2] for line in capsys.readouterr().out.splitlines()}
    # Topic 1: a (rel) at rank 1, b (non-rel), c (rel) not retrieved; R = 2, so the levels need lround(r * 2)
    # relevant documents: 0 for r < 0.25, 1 up to 0.7, 2 from 0.8. One is found, at precision 1: 8 of the 11
    # levels get 1 -> 8/11. Topic 2: d at rank 1, a not: the same 8/11. Topic 3: 0.
    assert lines[(f"{'iprec_at_recall_0.00':<22}", "3")] == "0.0000"
    assert lines[(f"{'11pt_avg':<22}", "3")] == "0.0000"
    assert lines[(f"{'iprec_at_recall_0.00':<22}", "all")] == f"{2 / 3:.4f}"
    assert lines[(f"{'11pt_avg':<22}", "1")] == f"{8 / 11:.4f}"
    assert lines[(f"{'11pt_avg':<22}", "all")] == f"{(8 / 11 + 8 / 11) / 3:.4f}"


def test_a_measure_given_parameters_is_printed_once_with_the_first_ones_given(tmp_path, capsys):
    """trec_eval computes each measure once: `-m all_trec -m relstring.20` prints relstring_20 alone, and of
    `-m P.5 -m P.10` the first parameters win."""
    (tmp_path / "qrels").write_text("1 0 a 1\n1 0 b 0\n")
    (tmp_path / "run").write_text("1 Q0 a 1 3.0 r\n1 Q0 b 2 2.0 r\n")
    files = [str(tmp_path / "qrels"), str(tmp_path / "run")]
    assert main([*files, "-q", "-m", "all_trec", "-m", "relstring.20"]) == 0
    names = [line.split("\t")[0].strip() for line in capsys.readouterr().out.splitlines()]
    assert [n for n in names if n.startswith("relstring")] == ["relstring_20"]
    assert main([*files, "-m", "P.5", "-m", "P.10", "-m", "all_trec"]) == 0
    names = [line.split("\t")[0].strip() for line in capsys.readouterr().out.splitlines()]
    assert [n for n in names if n.startswith("P_")] == ["P_5"]
