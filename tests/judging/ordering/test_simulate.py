"""`python -m judging.ordering`: a campaign replayed with the qrels as the oracle assessor."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from judging.ordering import __main__ as simulate

QRELS = "t1 0 d1 1\nt1 0 d4 2\nt1 0 d2 0\n"
RUN_A = "t1 Q0 d1 1 3.0 A\nt1 Q0 d2 2 2.0 A\nt1 Q0 d3 3 1.0 A\n"
RUN_B = "t1 Q0 d5 1 3.0 B\nt1 Q0 d4 2 2.0 B\nt1 Q0 d6 3 1.0 B\n"


@pytest.fixture
def files(tmp_path):
    paths = {}
    for name, text in (("qrels", QRELS), ("a.run", RUN_A), ("b.run", RUN_B)):
        paths[name] = tmp_path / name
        paths[name].write_text(text)
    return paths


def _run(*args):
    return subprocess.run([sys.executable, "-m", "judging.ordering", *map(str, args)], capture_output=True, text=True)


def test_best_rank_replay_by_hand(files):
    done = _run(files["qrels"], files["a.run"], files["b.run"], "--strategy", "best_rank", "--every", "1", "--json")
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert (result["strategy"], result["pool"], result["relevant"]) == ("best_rank", 6, 2)
    # Pool order: d1 (A@1), d5 (B@1), d2, d4, d3, d6. With every label, MAP: A 0.5 > B 0.25, but nDCG@10 (d4 has
    # grade 2; ideal 2 + 1/log2(3)): A 0.380 < B 0.480. Until d4 is judged, A leads both: tau 1 for MAP, -1 for nDCG.
    assert [p["judged"] for p in result["curve"]] == [1, 2, 3, 4, 5, 6]
    assert [p["relevant_found"] for p in result["curve"]] == [0.5, 0.5, 0.5, 1.0, 1.0, 1.0]
    assert [p["tau_ap"] for p in result["curve"]] == [1.0] * 6
    assert [p["tau_ndcg10"] for p in result["curve"]] == [-1.0, -1.0, -1.0, 1.0, 1.0, 1.0]


def test_mtf_follows_the_run_that_found_a_relevant_document(files):
    done = _run(files["qrels"], files["a.run"], files["b.run"], "--strategy", "mtf", "--every", "1", "--json")
    result = json.loads(done.stdout)
    # A's d1 is relevant, so A goes on: d2 (not relevant, A drops to -1); B: d5 (not, -1); A, served earlier: d3
    # (unjudged, so not relevant); then B: d4.
    assert [p["relevant_found"] for p in result["curve"]] == [0.5, 0.5, 0.5, 0.5, 1.0, 1.0]


def test_the_text_output_has_a_row_per_point(files):
    done = _run(files["qrels"], files["a.run"], files["b.run"], "--every", "3")
    assert done.returncode == 0
    assert "best_rank: pool 6, relevant 2" in done.stdout
    assert len(done.stdout.strip().splitlines()) == 2 + 2


def test_bad_input_is_an_error_not_a_trace(files, tmp_path):
    missing = _run(tmp_path / "nope", files["a.run"])
    assert missing.returncode == 2 and "nope" in missing.stderr and "Traceback" not in missing.stderr
    assert _run(files["qrels"], files["a.run"], "--depth", "0").returncode == 2
    assert _run(files["qrels"], files["a.run"], "--strategy", "oracle").returncode == 2


def test_tau_is_null_while_every_run_ties():
    from measures import TrecReader

    reader = TrecReader()
    qrels = reader.qrels({"t": {"x": 1}})
    runs = [reader.run("A", {"t": {"y": 1.0}}), reader.run("B", {"t": {"z": 1.0}})]
    result = simulate.simulate(qrels, runs, strategy="best_rank", every=1)
    assert result["relevant"] == 0 and all(p["tau_ap"] is None for p in result["curve"])
