"""Machine judging through the Batch API (judging/machines/core/batches.py) against a local server that speaks it
as documented (tests/batch_server.py), networking to anything else refused: the labels equal an online run's
against the same answers; files split at the line limit; expired, failed and partial batches and lines in the
error file are sent again, answered lines never; an unreadable answer is a failure, not a resend; a line out of
sends fails with its reason; polls are at least poll_seconds apart; a stop cancels on the server; resumed batches
are polled, not sent again."""

from __future__ import annotations

import itertools
import json

import pytest

from judging.machines.core.batch_api import BatchApi, BatchCallFailed
from judging.machines.core.batches import BatchLimits, BatchUnderWay, custom_id, judge_in_batches, read_lines
from judging.machines.core.cache import ReplyCache
from judging.machines.core.client import Budget, ChatClient, ServerConfig
from judging.machines.core.judge import SAMPLING_TEMPERATURE, judge_pairs
from judging.machines.core.prompts import UMBRELA
from tests.batch_server import batch_server
from tests.judging.machines.test_machine_judge import DOCUMENTS, PAIRS, QRELS, TOPICS

POLL = 0.02


def _config(server, **options) -> ServerConfig:
    return ServerConfig(base_url=server.base_url, model="m", backoff=0.01, **options)


def _batched(server, *, limits=None, pairs=PAIRS, samples=1, batch="pair", cache=None, **options):
    config = _config(server, temperature=SAMPLING_TEMPERATURE if samples > 1 else 0.0)
    return judge_in_batches(
        pairs, topics=TOPICS, documents=DOCUMENTS, template=UMBRELA, api=BatchApi(config),
        cache=cache or ReplyCache(None), limits=limits or BatchLimits(poll_seconds=POLL), samples=samples,
        batch=batch, **options,
    )  # fmt: skip


def _online(server, *, samples=1, batch="pair"):
    config = _config(server, temperature=SAMPLING_TEMPERATURE if samples > 1 else 0.0)
    return judge_pairs(PAIRS, topics=TOPICS, documents=DOCUMENTS, template=UMBRELA, client=ChatClient(config),
                       cache=ReplyCache(None), samples=samples, batch=batch)  # fmt: skip


def _sorted(rows):
    return sorted(rows, key=lambda row: (row["topic"], row["docno"]))


@pytest.mark.parametrize("batch", ["pair", "topic"])
def test_the_labels_of_a_batch_run_equal_an_online_runs_against_the_same_answers(batch):
    with batch_server(QRELS) as server:
        online = _online(server, batch=batch).as_dict()
        batched = _batched(server, batch=batch).as_dict()
    assert _sorted(batched["labels"]) == _sorted(online["labels"]) and batched["failures"] == online["failures"] == []
    assert batched["tokens"] == online["tokens"]
    assert {(label["topic"], label["docno"]): label["grade"] for label in batched["labels"]} == QRELS
    [only] = batched["batches"]
    assert only["status"] == "completed" and only["requests"] == (16 if batch == "pair" else 2)
    assert only["completed"] + only["failed"] <= only["requests"]


def test_each_line_is_the_online_request_with_a_stable_custom_id():
    with batch_server(QRELS) as server:
        _batched(server, pairs=PAIRS[:2])
        [content] = [c for c in server.files.values() if b'"method"' in c]
    lines = [json.loads(line) for line in content.splitlines()]
    assert [line["custom_id"] for line in lines] == [custom_id([pair], 0) for pair in PAIRS[:2]]
    assert {(line["method"], line["url"]) for line in lines} == {("POST", "/v1/chat/completions")}
    assert lines[0]["body"]["model"] == "m" and lines[0]["body"]["messages"][0]["role"] == "user"
    assert "topic 1" in lines[0]["body"]["messages"][0]["content"]
    [created] = server.batches.values()
    assert created["completion_window"] == "24h"


def test_with_samples_each_sample_is_its_own_line_and_labels_carry_votes():
    with batch_server(QRELS, noise=0.3, seed=3) as server:
        run = _batched(server, samples=3).as_dict()
    assert run["requests"] == 3 * len(PAIRS) and len(run["labels"]) == len(PAIRS)
    assert all(len(label["votes"]) == 3 for label in run["labels"])
    assert len(server.sent) == 3 * len(PAIRS) and set(server.sent.values()) == {1}


def test_a_file_over_the_line_limit_is_split_into_several_batches():
    with batch_server(QRELS) as server:
        server.max_lines = 5
        run = _batched(server, limits=BatchLimits(max_requests=5, poll_seconds=POLL)).as_dict()
    assert [b["requests"] for b in run["batches"]] == [5, 5, 5, 1]
    assert len(run["labels"]) == 16 and run["failures"] == []


def test_a_file_over_the_byte_limit_is_split_too():
    with batch_server(QRELS) as server:
        run = _batched(server, limits=BatchLimits(max_bytes=2_000, poll_seconds=POLL)).as_dict()
    assert len(run["batches"]) > 1 and sum(b["requests"] for b in run["batches"]) == 16


def test_a_file_the_server_refuses_is_sent_again_and_fails_naming_the_refusal_after_the_rounds():
    with batch_server(QRELS) as server:
        server.max_lines = 5  # the client's limit is 50,000: every upload refused
        run = _batched(server, limits=BatchLimits(poll_seconds=POLL, rounds=2)).as_dict()
    assert run["labels"] == [] and len(run["failures"]) == 16 and run["requests"] == 0
    assert all(f["reason"].startswith("batch not started: sent 2 times; POST files: HTTP 400") for f in run["failures"])


@pytest.mark.parametrize("plan", ["expire", "partial", "fail"])
def test_what_an_expired_partial_or_failed_batch_left_unanswered_is_sent_again_and_nothing_answered_twice(plan):
    with batch_server(QRELS) as server:
        server.plans = [plan]
        run = _batched(server).as_dict()
    assert {(label["topic"], label["docno"]): label["grade"] for label in run["labels"]} == QRELS
    assert run["failures"] == []
    assert [b["status"] for b in run["batches"]] == [{"expire": "expired", "fail": "failed"}.get(plan, "completed"),
                                                     "completed"]  # fmt: skip
    assert set(server.answered.values()) == {1}  # no line answered twice
    assert run["requests"] == 16 + run["batches"][1]["requests"]


def test_lines_in_the_error_file_worth_another_try_are_resent_and_a_refusal_or_unreadable_answer_is_not():
    ids = {pair: custom_id([pair], 0) for pair in PAIRS}
    with batch_server(QRELS) as server:
        server.line_faults = {ids[PAIRS[0]]: "500", ids[PAIRS[1]]: "400", ids[PAIRS[2]]: "empty"}
        run = _batched(server).as_dict()
    failures = {(f["topic"], f["docno"]): f["reason"] for f in run["failures"]}
    assert set(failures) == {PAIRS[1], PAIRS[2]}
    assert failures[PAIRS[1]].startswith("HTTP 400: Bad request") and "no choice" in failures[PAIRS[2]]
    assert server.sent[ids[PAIRS[0]]] == 2 and server.sent[ids[PAIRS[1]]] == server.sent[ids[PAIRS[2]]] == 1
    assert len(run["labels"]) == 14


def test_a_line_still_unanswered_after_the_rounds_fails_with_its_last_reason():
    with batch_server(QRELS) as server:
        server.plans = ["expire"] * 3
        run = _batched(server, limits=BatchLimits(poll_seconds=POLL, rounds=3)).as_dict()
    assert len(run["batches"]) == 3 and len(run["labels"]) == 8 + 4 + 2
    assert len(run["failures"]) == 2
    assert all(f["reason"] == "batch_expired: sent 3 times" for f in run["failures"])


def test_looks_at_one_batch_are_at_least_poll_seconds_apart():
    with batch_server(QRELS) as server:
        server.looks_per_step = 3
        _batched(server, limits=BatchLimits(poll_seconds=0.1))
        [looks] = server.looks.values()
    gaps = [b - a for a, b in itertools.pairwise(looks)]
    assert len(looks) >= 9 and min(gaps) >= 0.1


def test_a_stop_cancels_the_batches_under_way_on_the_server_and_labels_nothing_unanswered():
    with batch_server(QRELS) as server:
        server.hold_next()
        run = _batched(server, stop=lambda: len(server.looks.get("batch_2", [])) >= 2).as_dict()
    assert server.cancels == ["batch_2"] and run["labels"] == [] and run["failures"] == []
    assert run["batches"][0]["status"] == "cancelling"


def test_resumed_batches_are_polled_and_read_not_sent_again():
    with batch_server(QRELS) as server:
        server.hold_next()
        first = _batched(server, stop=lambda: len(server.looks.get("batch_2", [])) >= 1, limits=BatchLimits(
            poll_seconds=POLL))  # fmt: skip
        assert first.labels == [] and server.cancels == ["batch_2"]
        server.cancels.clear()
        server.batches["batch_2"]["status"] = "in_progress"  # as if the stop had been a killed worker
        server.held.clear()
        resumed = BatchUnderWay("batch_2", 1, [custom_id([pair], 0) for pair in PAIRS], status="in_progress")
        run = _batched(server, resumed=[resumed]).as_dict()
    assert len(run["labels"]) == 16 and run["requests"] == 0 and set(server.sent.values()) == {1}
    assert [b["id"] for b in run["batches"]] == ["batch_2"]


def test_the_cache_answers_what_it_holds_and_keeps_what_a_batch_answered(tmp_path):
    with batch_server(QRELS) as server:
        _batched(server, pairs=PAIRS[:4], cache=ReplyCache(tmp_path))
        run = _batched(server, cache=ReplyCache(tmp_path)).as_dict()
    assert run["cached"] == 4 and run["requests"] == 12 and len(run["labels"]) == 16


def test_a_budget_of_requests_stops_the_lines_sent():
    with batch_server(QRELS) as server:
        run = _batched(server, budget=Budget(requests=10))
    assert run.requests == 10 and len(run.labels) == 10 and run.budget_spent
    assert all(f["reason"].startswith("budget spent") for f in run.failures) and len(run.failures) == 6


def test_the_key_is_sent_on_every_call_and_a_refusal_names_no_key(monkeypatch):
    monkeypatch.setenv("WORKBENCH_SECRET_BATCH_KEY", "sk-batch-0123456789abcdef")
    with batch_server(QRELS) as server:
        api = BatchApi(_config(server, api_key_env="WORKBENCH_SECRET_BATCH_KEY"))
        api.upload(b'{"custom_id": "x"}\n', name="one.jsonl")
        with pytest.raises(BatchCallFailed) as refused:
            api.retrieve("batch_missing")
    assert set(server.authorizations) == {"Bearer sk-batch-0123456789abcdef"}
    assert "HTTP 404" in str(refused.value) and "sk-batch" not in str(refused.value)


def test_a_server_the_operator_does_not_allow_is_never_called():
    from tests.batch_server import BatchServer

    server = BatchServer(QRELS)  # not started, not allowed
    api = BatchApi(ServerConfig(base_url=server.base_url, model="m", retries=0))
    with pytest.raises(BatchCallFailed, match="refused"):
        api.upload(b"{}\n", name="x.jsonl")
    server.server_close()


def test_output_lines_are_matched_by_custom_id_and_garbled_lines_match_nothing():
    content = b"\n".join([
        b'{"custom_id": "b", "response": {"status_code": 200, "body": {"choices": [{"message": {"content": "##final '
        b'score: 2"}}], "usage": {"prompt_tokens": 7, "completion_tokens": 3}}}}',
        b"not json",
        b'{"custom_id": "a", "response": null, "error": {"code": "batch_expired", "message": "late"}}',
        b'{"custom_id": "c", "response": {"status_code": 429, "body": {}}}',
    ])  # fmt: skip
    read = read_lines(content)
    assert set(read) == {"a", "b", "c"}
    assert read["b"].text == "##final score: 2" and (read["b"].prompt_tokens, read["b"].completion_tokens) == (7, 3)
    assert read["a"].resend and read["a"].error == "batch_expired" and read["c"].resend


def test_a_batch_the_server_no_longer_knows_has_its_lines_sent_again_after_the_looks_it_did_not_answer(monkeypatch):
    from judging.machines.core import batches

    monkeypatch.setattr(batches, "MAX_LOOK_FAILURES", 3)
    lost = BatchUnderWay("batch_gone", 1, [custom_id([pair], 0) for pair in PAIRS], status="in_progress")
    with batch_server(QRELS) as server:
        run = _batched(server, resumed=[lost]).as_dict()
    assert {(label["topic"], label["docno"]): label["grade"] for label in run["labels"]} == QRELS
    assert [b["status"] for b in run["batches"]] == ["failed", "completed"] and set(server.sent.values()) == {1}
