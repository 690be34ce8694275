"""Machine judges against a real HTTP server speaking the chat-completions protocol (tests/chat_server.py): labels
from its replies, every fault recorded per pair and the worth-retrying ones retried (429's Retry-After respected),
concurrency and rate limits, a budget that stops the run, and a cache that never pays for a pair twice, through
the library and through `python -m judging.machines`. No secret appears in any output."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from judging.machines.core.cache import ReplyCache
from judging.machines.core.client import Budget, ChatClient, ServerConfig
from judging.machines.core.judge import TopicText, judge_pairs, mapped
from judging.machines.core.prompts import BINARY, DNA, UMBRELA, PromptReplyError, grade_of, render
from tests.chat_server import chat_server, outbound_allowed

ROOT = Path(__file__).resolve().parents[3]
SECRET_NAME = "WORKBENCH_SECRET_JUDGE_KEY"
QRELS = {("1", f"d{i}"): i % 4 for i in range(8)} | {("2", f"d{i}"): (i * 3) % 4 for i in range(8)}
TOPICS = {"1": TopicText("topic 1", "the first question"), "2": TopicText("topic 2")}
DOCUMENTS = {f"d{i}": f"doc d{i}: some text about the matter at hand" for i in range(8)}
PAIRS = sorted(QRELS)


def _judge(server, tmp_path=None, *, concurrency=1, budget=None, **config):
    client = ChatClient(ServerConfig(base_url=server.base_url, model="m", backoff=0.01, **config), budget=budget)
    return judge_pairs(
        PAIRS,
        topics=TOPICS,
        documents=DOCUMENTS,
        template=UMBRELA,
        client=client,
        cache=ReplyCache(tmp_path),
        concurrency=concurrency,
    )


def test_labels_come_from_the_servers_replies_and_equal_its_model_without_noise():
    with chat_server(QRELS) as server:
        run = _judge(server)
    assert {(label["topic"], label["docno"]): label["grade"] for label in run.labels} == QRELS
    assert (run.requests, run.cached, run.failures) == (16, 0, [])
    assert run.prompt_tokens > 0 and run.completion_tokens == 64


def test_429_is_retried_after_what_the_server_asks_and_500_with_backoff():
    with chat_server(QRELS) as server:
        server.faults, server.retry_after = ["429", "500", "429"], "0.3"
        started = time.monotonic()
        run = _judge(server)
    assert run.failures == [] and len(run.labels) == 16
    assert server.requests == 16 + 3
    assert time.monotonic() - started >= 0.6  # two Retry-After waits of 0.3 s


@pytest.mark.parametrize(("fault", "reason"), [
    ("garbage", "not chat-completions JSON"), ("empty", "no choice"), ("500", "HTTP 500"),
])  # fmt: skip
def test_a_fault_that_outlasts_the_retries_is_a_failure_of_that_pair_only(fault, reason):
    with chat_server(QRELS) as server:
        server.faults = [fault] * 4  # the first pair's every attempt (retries: 3)
        run = _judge(server)
    assert [(f["topic"], f["docno"]) for f in run.failures] == [("1", "d0")]
    assert reason in run.failures[0]["reason"]
    assert len(run.labels) == 15  # every other pair labelled


def test_a_slow_server_times_out_and_says_so():
    with chat_server(QRELS) as server:
        server.delay = 0.5
        client = ChatClient(ServerConfig(base_url=server.base_url, model="m", timeout=0.1, retries=1, backoff=0.01))
        reply = client.complete("Query: topic 1 doc d1")
    assert reply.error.startswith("timed out") and reply.attempts == 2


def test_a_server_that_is_down_is_a_failure_not_a_crash():
    client = ChatClient(ServerConfig(base_url="http://127.0.0.1:9/v1", model="m", retries=1, backoff=0.01))
    with outbound_allowed("127.0.0.1:9"):
        reply = client.complete("x")
    assert reply.text is None and reply.error == "could not connect" and reply.attempts == 2


def test_concurrency_is_used_and_the_rate_limit_spaces_requests():
    with chat_server(QRELS) as server:
        server.delay = 0.1  # each answer takes a while, so requests sent together are seen together
        _judge(server, concurrency=8)
        assert server.most_active >= 4  # counted by the server: requests in flight at once
    with chat_server(QRELS) as server:
        started = time.monotonic()
        _judge(server, concurrency=4, requests_per_minute=600)  # one every 0.1 s
        assert time.monotonic() - started >= 1.4  # a lower bound: a slow machine only waits longer


def test_a_budget_stops_the_run_and_the_rest_are_failures_saying_so():
    with chat_server(QRELS) as server:
        run = _judge(server, budget=Budget(requests=5))
    assert server.requests == 5 and len(run.labels) == 5
    assert {f["reason"] for f in run.failures} == {"budget spent: no more requests"} and len(run.failures) == 11
    assert run.budget_spent  # said as a flag, not left to a reason's wording


def test_a_run_within_its_budget_says_the_budget_was_not_spent():
    with chat_server(QRELS) as server:
        run = _judge(server, budget=Budget(requests=100))
    assert not run.budget_spent and not run.failures


def test_a_rerun_with_the_same_cache_sends_no_request_for_a_pair_already_answered(tmp_path):
    with chat_server(QRELS) as server:
        server.faults = ["garbage"] * 4
        first = _judge(server, tmp_path)
        sent = server.requests
        second = _judge(server, tmp_path)
    assert len(first.failures) == 1 and second.failures == []
    assert server.requests - sent == 1 and second.cached == 15  # only the failed pair is asked again


def test_a_reply_without_a_grade_or_off_the_scale_is_refused_never_guessed():
    with pytest.raises(PromptReplyError):
        grade_of(UMBRELA, "I think it is quite relevant.")
    with pytest.raises(PromptReplyError, match="off the scale"):
        grade_of(UMBRELA, "##final score: 7")
    assert grade_of(BINARY, "reasoning...\n##final score: 1") == 1
    assert grade_of(DNA, '[{"M": 2, "T": 1, "O": 2}]') == 2
    with pytest.raises(PromptReplyError):
        grade_of(DNA, '[{"M": 2}]')


def test_prompts_carry_the_topic_and_a_document_cut_to_its_budget():
    prompt = render(UMBRELA, title="how to parse json", document="word " * 1000, budget_words=50)
    assert "Query: how to parse json" in prompt and prompt.count("word") == 50
    assert mapped(3, (0, 3), (0, 1)) == 1 and mapped(1, (0, 3), (0, 1)) == 0 and mapped(2, (0, 2), (0, 3)) == 3


def _files(tmp_path):
    topics = tmp_path / "topics.tsv"
    topics.write_text("".join(f"{t}\ttopic {t}\n" for t in TOPICS))
    documents = tmp_path / "docs.tsv"
    documents.write_text("".join(f"{d}\t{text}\n" for d, text in DOCUMENTS.items()))
    qrels = tmp_path / "pairs.qrels"
    qrels.write_text("".join(f"{t} 0 {d} {g}\n" for (t, d), g in QRELS.items()))
    return topics, documents, qrels


def _command(server, tmp_path, *extra, env=None):
    topics, documents, pairs = _files(tmp_path)
    command = [sys.executable, "-m", "judging.machines", str(topics), str(documents), str(pairs),
               "--base-url", server.base_url, "--model", "m", "--json", *extra]  # fmt: skip
    return subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=60, env=env)


def test_the_command_prints_labels_and_a_rerun_with_its_cache_sends_nothing(tmp_path):
    import os

    with chat_server(QRELS) as server:
        env = {**os.environ, SECRET_NAME: "sk-very-secret-value"}
        done = _command(server, tmp_path, "--cache", str(tmp_path / "cache"), "--api-key-env", SECRET_NAME, env=env)
        assert done.returncode == 0, done.stderr
        result = json.loads(done.stdout)
        assert len(result["labels"]) == 16 and result["requests"] == 16 and result["cached"] == 0
        again = json.loads(_command(server, tmp_path, "--cache", str(tmp_path / "cache")).stdout)
        assert again["requests"] == 0 and again["cached"] == 16 and server.requests == 16
    assert "sk-very-secret-value" not in done.stdout + done.stderr + json.dumps(server.prompts)


def test_the_command_maps_grades_onto_the_scale_asked_for(tmp_path):
    with chat_server(QRELS) as server:
        result = json.loads(_command(server, tmp_path, "--scale", "0-1").stdout)
    assert {label["grade"] for label in result["labels"]} == {0, 1}


def test_the_command_rates_a_topics_documents_in_one_call_with_batch_topic(tmp_path):
    with chat_server(QRELS) as server:
        done = _command(server, tmp_path, "--batch", "topic", "--cache", str(tmp_path / "cache"))
        assert done.returncode == 0, done.stderr
        result = json.loads(done.stdout)
        assert {(label["topic"], label["docno"]): label["grade"] for label in result["labels"]} == QRELS
        assert result["requests"] == server.requests == 2  # two topics
        again = json.loads(_command(server, tmp_path, "--cache", str(tmp_path / "cache")).stdout)  # per pair now
        assert again["requests"] == 0 and again["cached"] == 16


def test_a_prompt_over_the_context_fails_at_once_with_the_servers_words_and_a_401_never_quotes_the_key(monkeypatch):
    monkeypatch.setenv(SECRET_NAME, "sk-quoted-secret-42")
    with chat_server(QRELS) as server:
        server.faults = ["400", "401"]
        client = ChatClient(ServerConfig(base_url=server.base_url, model="m", api_key_env=SECRET_NAME, backoff=0.01))
        over = client.complete("Query: topic 1 doc d1")
        refused = client.complete("Query: topic 1 doc d2")
    assert over.attempts == 1 and over.error.startswith("HTTP 400: This model's maximum context length is 8192")
    assert refused.attempts == 1 and refused.error == "HTTP 401" and "sk-quoted" not in refused.error


def test_a_recorded_server_answer_replays_through_the_adapter_the_live_call_uses():
    from judging.machines.core.adapters import OpenAIChat

    adapter = OpenAIChat()
    request = adapter.request(base_url="http://judge.test/v1/", model="m", prompt="Rate this.", temperature=0.0,
                              max_tokens=8, key="sk-test")  # fmt: skip
    assert request.url == "http://judge.test/v1/chat/completions"
    assert request.body["messages"] == [{"role": "user", "content": "Rate this."}]
    assert request.headers == {"Authorization": "Bearer sk-test"}
    recorded = b'{"choices": [{"message": {"content": "##final score: 2"}}], "usage": {"prompt_tokens": 9}}'
    parsed = adapter.parse(recorded)
    assert (parsed.text, parsed.error, parsed.prompt_tokens) == ("##final score: 2", None, 9)
    assert adapter.parse(b"<html>502</html>").error == "unreadable reply: not chat-completions JSON"
