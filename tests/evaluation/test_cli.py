"""`python -m evaluation`: trec_eval's text output, JSON at full precision, exit status 2 on bad input."""

import json
import subprocess
import sys

import pytest
import pytrec_eval

from evaluation.cli import main

from .generated import generated_collection, qrels_lines, run_lines


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
    assert [line.split("\t")[0].strip() for line in lines if "\tall\t" in line] == ["runid", "num_q", "map", "P_5"]


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
