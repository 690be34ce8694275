"""`python -m evaluation.estimate`: each run's estimate equals ppi-python's on the per-topic values pytrec_eval
gives under each qrels; every pair of runs is reported once per measure; bad input exits 2 naming what is wrong."""

from __future__ import annotations

import json
import random
from itertools import combinations

import numpy as np
import pytest

from evaluation.estimate.__main__ import main

ppi_py = pytest.importorskip("ppi_py", reason="ppi-python, the reference, is in the test extra")
pytrec_eval = pytest.importorskip("pytrec_eval")

TOPICS = [str(t) for t in range(101, 141)]
PEOPLE = TOPICS[::4]  # 10 of 40, spread as a random draw would be


def _files(tmp_path):
    rng = random.Random(7)
    truth = {t: {f"d{d}": int(rng.random() < 0.3) for d in range(30)} for t in TOPICS}
    machine = {t: {d: int(g if rng.random() < 0.8 else rng.random() < 0.5) for d, g in docs.items()}
               for t, docs in truth.items()}  # fmt: skip
    people = {t: truth[t] for t in PEOPLE}
    runs = {}
    for r, skill in enumerate((0.9, 0.6, 0.3)):
        runs[f"run{r}"] = {
            t: {d: (skill * g + rng.random()) // 0.25 * 0.25 for d, g in docs.items()}  # tied scores
            for t, docs in truth.items()
        }
    paths = {}
    for name, qrels in (("machine", machine), ("people", people)):
        paths[name] = tmp_path / f"{name}.qrels"
        paths[name].write_text("".join(f"{t} 0 {d} {g}\n" for t, docs in qrels.items() for d, g in docs.items()))
    for tag, run in runs.items():
        paths[tag] = tmp_path / f"{tag}.txt"
        lines = [f"{t} Q0 {d} {i} {s} {tag}\n" for t, docs in run.items()
                 for i, (d, s) in enumerate(sorted(docs.items(), key=lambda x: -x[1]))]  # fmt: skip
        paths[tag].write_text("".join(lines))
    return paths, machine, people, runs


def _values(qrels, run, measure):
    per_topic = pytrec_eval.RelevanceEvaluator(qrels, {measure}).evaluate(run)
    return {t: per_topic[t][measure] for t in qrels}


def test_each_runs_estimate_is_ppi_pythons_on_trec_evals_per_topic_values(tmp_path, capsys):
    paths, machine, people, runs = _files(tmp_path)
    argv = ["--machine", str(paths["machine"]), "--people", str(paths["people"]),
            *(str(paths[t]) for t in runs), "-m", "map", "-m", "P.10", "--json"]  # fmt: skip
    assert main(argv) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["level"] == 0.95 and report["topics"] == {"all": 40, "people": 10}
    others = [t for t in TOPICS if t not in PEOPLE]
    for tag, run in runs.items():
        for name, trec in (("map", "map"), ("P.10", "P_10")):
            on_machine, on_people = _values(machine, run, trec), _values(people, run, trec)
            y = np.array([on_people[t] for t in PEOPLE])
            yhat, rest = np.array([on_machine[t] for t in PEOPLE]), np.array([on_machine[t] for t in others])
            low, high = ppi_py.ppi_mean_ci(y, yhat, rest, alpha=0.05)
            entry = report["runs"][tag][name]
            assert (entry["low"], entry["high"]) == pytest.approx((float(low[0]), float(high[0])), rel=1e-9)
            assert entry["estimate"] == pytest.approx(float(np.squeeze(ppi_py.ppi_mean_pointestimate(y, yhat, rest))))
            assert entry["machine_only"] == pytest.approx(float(np.mean(list(on_machine.values()))))
            people_low, people_high = ppi_py.classical_mean_ci(y, alpha=0.05)
            assert (entry["people_only"]["low"], entry["people_only"]["high"]) == pytest.approx(
                (float(people_low), float(people_high))
            )
    pairs = {(p["a"], p["b"], p["measure"]) for p in report["pairs"]}
    assert pairs == {(a, b, m) for a, b in combinations(runs, 2) for m in ("map", "P.10")}
    for pair in report["pairs"]:
        assert pair["separated"] == (pair["low"] > 0 or pair["high"] < 0)
        assert (pair["more_topics_needed"] is None) == (pair["separated"] or pair["difference"] == 0)


def test_a_pairs_difference_is_ppi_on_the_per_topic_differences(tmp_path, capsys):
    paths, machine, people, runs = _files(tmp_path)
    assert main(["--machine", str(paths["machine"]), "--people", str(paths["people"]), str(paths["run0"]),
                 str(paths["run2"]), "-m", "map", "--json"]) == 0  # fmt: skip
    (pair,) = json.loads(capsys.readouterr().out)["pairs"]
    others = [t for t in TOPICS if t not in PEOPLE]
    a_m, b_m = _values(machine, runs["run0"], "map"), _values(machine, runs["run2"], "map")
    a_p, b_p = _values(people, runs["run0"], "map"), _values(people, runs["run2"], "map")
    y = np.array([a_p[t] - b_p[t] for t in PEOPLE])
    yhat, rest = np.array([a_m[t] - b_m[t] for t in PEOPLE]), np.array([a_m[t] - b_m[t] for t in others])
    low, high = ppi_py.ppi_mean_ci(y, yhat, rest, alpha=0.05)
    assert (pair["a"], pair["b"]) == ("run0", "run2")
    assert (pair["low"], pair["high"]) == pytest.approx((float(low[0]), float(high[0])), rel=1e-9)


def test_bad_input_exits_2_naming_it(tmp_path, capsys):
    paths, *_ = _files(tmp_path)
    stray = tmp_path / "stray.qrels"
    stray.write_text("999 0 d1 1\n101 0 d1 0\n")
    base = ["--machine", str(paths["machine"]), str(paths["run0"]), "--json"]
    assert main([*base, "--people", str(stray), "-m", "map"]) == 2
    assert "999" in capsys.readouterr().err
    assert main([*base, "--people", str(paths["people"]), "-m", "nonsense@3"]) == 2
    assert "nonsense" in capsys.readouterr().err
    assert main([*base, "--people", str(paths["people"]), "-m", "map", "--level", "1.5"]) == 2
    assert "--level" in capsys.readouterr().err


def test_a_measure_that_is_not_a_mean_gets_no_interval_and_says_why(tmp_path, capsys):
    paths, *_ = _files(tmp_path)
    argv = ["--machine", str(paths["machine"]), "--people", str(paths["people"]), str(paths["run0"]),
            str(paths["run1"]), "-m", "gm_map", "-m", "num_rel_ret", "--json"]  # fmt: skip
    assert main(argv) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["runs"]["run0"]["gm_map"]["low"] is None
    assert report["runs"]["run0"]["gm_map"]["reason"] == (
        "gm_map is a geometric mean, not a mean: prediction-powered intervals are for means"
    )
    assert report["runs"]["run0"]["num_rel_ret"]["estimate"] is None
