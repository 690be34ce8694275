"""`python -m judging.machines` with #48's options: --provider chat|lexical|embedding, --samples K (labels carry
their votes) and --probes N (the flips per probe kind), against the local chat server made gullible and honest."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.chat_server import chat_server
from tests.judging.machines.test_machine_judge import QRELS, ROOT, _files


def _run(tmp_path, *options):
    topics, documents, pairs = _files(tmp_path)
    command = [sys.executable, "-m", "judging.machines", str(topics), str(documents), str(pairs), "--json", *options]
    return subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=120)


def test_with_samples_each_label_carries_its_votes(tmp_path):
    with chat_server(QRELS, noise=0.3) as server:
        done = _run(tmp_path, "--base-url", server.base_url, "--model", "m", "--samples", "3")
        assert done.returncode == 0, done.stderr
        assert server.requests == 3 * len(QRELS)
    labels = json.loads(done.stdout)["labels"]
    assert len(labels) == len(QRELS) and all(len(label["votes"]) == 3 for label in labels)


@pytest.mark.parametrize("gullible", [True, False], ids=["gullible", "honest"])
def test_probes_count_the_flips_of_each_kind(tmp_path, gullible):
    with chat_server(QRELS) as server:
        server.gullible = gullible
        done = _run(tmp_path, "--base-url", server.base_url, "--model", "m", "--probes", "4")
    assert done.returncode == 0, done.stderr
    probes = json.loads(done.stdout)["probes"]
    assert set(probes) == {"keyword_stuffing", "instruction_injection", "length"}
    injected = probes["instruction_injection"]
    assert injected["tried"] == 4 and injected["flipped"] == (4 if gullible else 0)
    assert probes["keyword_stuffing"]["flipped"] == 0 and probes["length"]["flipped"] == 0


def test_the_lexical_judge_needs_no_server_and_fits_on_the_qrels_given(tmp_path):
    _, _, qrels = _files(tmp_path)
    done = _run(tmp_path, "--provider", "lexical", "--qrels", str(qrels), "--probes", "2")
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert len(result["labels"]) == len(QRELS) and result["requests"] == 0
    assert {label["grade"] for label in result["labels"]} <= {0, 1, 2, 3}
    assert result["probes"]["length"]["tried"] <= 2


def test_a_chat_judge_without_a_server_is_refused_with_exit_status_2(tmp_path):
    done = _run(tmp_path)
    assert done.returncode == 2 and "--base-url and --model" in done.stderr


@pytest.mark.slow
def test_the_embedding_judge_labels_every_pair_offline(tmp_path):
    done = _run(tmp_path, "--provider", "embedding")
    assert done.returncode == 0, done.stderr
    assert len(json.loads(done.stdout)["labels"]) == len(QRELS)


def test_with_the_batch_api_it_prints_the_online_json_and_the_batches(tmp_path):
    from tests.batch_server import batch_server

    with batch_server(QRELS, noise=0.3, seed=5) as server:
        server.max_lines = 20
        options = ("--base-url", server.base_url, "--model", "m", "--samples", "3")
        batched = _run(tmp_path, *options, "--batch-api", "--batch-max-requests", "20", "--poll-seconds", "0.05")
        assert batched.returncode == 0, batched.stderr
        result = json.loads(batched.stdout)
    assert result["requests"] == 3 * len(QRELS) and [b["requests"] for b in result["batches"]] == [20, 20, 8]
    assert all(b["status"] == "completed" and b["completed"] + b["failed"] <= b["requests"] for b in result["batches"])
    assert len(result["labels"]) == len(QRELS) and all(len(label["votes"]) == 3 for label in result["labels"])
    assert set(result) == {"labels", "failures", "requests", "cached", "tokens", "batches"}


def test_with_the_batch_api_a_pair_that_failed_gives_exit_status_1(tmp_path):
    from judging.machines.core.batches import custom_id
    from tests.batch_server import batch_server

    with batch_server(QRELS) as server:
        server.line_faults = {custom_id([("1", "d0")], 0): "400"}
        done = _run(tmp_path, "--base-url", server.base_url, "--model", "m", "--batch-api", "--poll-seconds", "0.05")
    assert done.returncode == 1, done.stderr
    [failure] = json.loads(done.stdout)["failures"]
    assert failure["topic"] == "1" and failure["docno"] == "d0" and failure["reason"].startswith("HTTP 400")
