"""Fetching query sets from live engines (#49), pure and on the command line, against local servers speaking the
Elasticsearch and Solr protocols with their faults: templates substitute anywhere and escape for where a value
lands; pages are followed to the depth; the run keeps the engine's order through tied scores; 429 and 5xx are
retried with Retry-After, nothing else is; a failed query is a hole, never an empty ranking; a circuit breaker stops
a dead engine; the secret is sent, never shown."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from config.core import outbound
from judging.search_fetch.core import templates
from judging.search_fetch.core.engines import Endpoint
from judging.search_fetch.core.fetch import Fetcher, Policy, run_lines
from measures.trec_files import run_lines as read_run
from tests.search_servers import search_server

ROOT = Path(__file__).resolve().parents[3]
HOSTILE = 'say "hi" \\ back {{narrative}} naïve \u00e9t\u00e9 {{ x }}'


def test_a_json_template_substitutes_inside_strings_and_the_serialiser_escapes_the_value():
    body = templates.json_body('{"query": {"multi_match": {"query": "{{query}}", "fields": ["t^{{boost}}"]}}}',
                               {"query": HOSTILE, "boost": "2"})  # fmt: skip
    assert body["query"]["multi_match"]["query"] == HOSTILE  # quotes, backslashes, non-ASCII, {{...}} kept as text
    assert body["query"]["multi_match"]["fields"] == ["t^2"]
    assert json.loads(json.dumps(body)) == body


def test_values_are_never_expanded_twice_and_unknown_placeholders_are_named():
    assert templates.substitute("{{query}}", {"query": "{{narrative}}", "narrative": "no"}) == "{{narrative}}"
    with pytest.raises(templates.TemplateError, match="boost"):
        templates.substitute("{{boost}}", {"query": "q"})
    with pytest.raises(templates.TemplateError, match="upper"):
        templates.substitute("{{query|upper}}", {"query": "q"})


def test_lucene_url_and_parameter_escaping():
    assert templates.substitute("{{query|lucene}}", {"query": 'a:b "c" (d)'}) == 'a\\:b \\"c\\" \\(d\\)'
    assert (
        templates.url("http://h/s?q={{query}}", {"query": 'a&b=c "d"/é'}) == "http://h/s?q=a%26b%3Dc%20%22d%22%2F%C3%A9"
    )
    assert templates.parameters("q={{query}}\nfq=type:a\nfq=lang:en", {"query": "x y"}) == [
        ("q", "x y"), ("fq", "type:a"), ("fq", "lang:en")]  # fmt: skip


def test_a_solr_query_string_template_is_decoded_once_and_lines_stay_literal():
    copied = "q={{query}}&defType=edismax&qf=title%5E2+body&fq=lang%3Aen"
    assert templates.parameters(copied, {"query": "a+b c%"}) == [
        ("q", "a+b c%"),
        ("defType", "edismax"),
        ("qf", "title^2 body"),
        ("fq", "lang:en"),
    ]  # the query's own + and % are text: decoding comes before the substitution
    lines = 'q={{query}}\nqf=title%5E2+body\nfq=title:"A & B"'
    expected = [("q", "x"), ("qf", "title%5E2+body"), ("fq", 'title:"A & B"')]
    assert templates.parameters(lines, {"query": "x"}) == expected


def _fetch(server, engine="elasticsearch", queries=None, **policy):
    endpoint = Endpoint(engine=engine, url=server.url, index="docs")
    options = {"depth": 4, "page_size": 2, "retries": 2, "backoff": 0.01, "timeout": 1.0} | policy
    with outbound.outbound_client() as client:
        fetcher = Fetcher(client, endpoint, Policy(**options))
        queries = queries or [("1", {"query": "red apples"}), ("2", {"query": "pears"})]
        return fetcher, fetcher.fetch(queries)


@pytest.mark.parametrize("engine", ["elasticsearch", "solr"])
def test_pages_are_followed_to_the_depth_and_the_run_keeps_the_engines_order_through_ties(engine):
    with search_server() as server:
        _, (apples, pears) = _fetch(server, engine)
        expected = [d for d, _ in server.ranked("red apples")][:4]
        assert [h.docid for h in apples.hits] == expected  # 2 pages of 2
        assert len(apples.requests) == 2 and all(r["sha256"] for r in apples.requests)
        assert [h.docid for h in pears.hits] == [d for d, _ in server.ranked("pears")]  # 3 hits: a short page
    lines = run_lines([apples, pears], "live")
    order = {}
    for line in read_run(io.BytesIO("\n".join(lines).encode() + b"\n")):
        order.setdefault(line.topic, []).append((line.score, line.docno))
    # trec_eval orders by score, then docno descending: the written scores leave it nothing to break.
    assert [d for _, d in sorted(order["1"], key=lambda pair: (-pair[0], pair[1]))] == expected
    assert expected != sorted(expected, reverse=True)  # the tie (alpha, charlie...) is not in docno order


def test_429_with_retry_after_and_500_are_retried_and_the_query_still_ranks():
    with search_server() as server:
        server.faults = ["429", "500"]
        server.retry_after = "0.05"
        _, (first, _second) = _fetch(server, concurrency=1)
    assert first.failure is None and len(first.hits) == 4
    assert [r["status"] for r in first.requests[:3]] == [429, 500, 200]


@pytest.mark.parametrize(("fault", "reason"), [("hang", "timed out"), ("garbage", "unreadable answer"),
                                               ("400", "HTTP 400")])  # fmt: skip
def test_other_faults_are_not_retried_and_leave_a_hole_never_an_empty_ranking(fault, reason):
    with search_server() as server:
        server.hang_seconds = 2.0
        server.faults = [fault]
        _, (first, second) = _fetch(server, concurrency=1, timeout=0.5)
    assert first.hits == [] and reason in first.failure and len(first.requests) == 1
    assert second.failure is None and second.hits
    assert not any(line.startswith("1 ") for line in run_lines([first, second], "t"))


def test_a_failure_on_a_later_page_leaves_a_hole_not_a_partial_ranking():
    with search_server() as server:
        server.faults = [None, "garbage"]  # the first page answers, the second does not
        _, (first, _second) = _fetch(server, concurrency=1)
    assert first.hits == [] and "unreadable answer" in first.failure and len(first.requests) == 2


def test_the_circuit_breaker_stops_asking_a_dead_engine():
    with search_server() as server:
        server.faults = ["400"] * 50
        fetcher, results = _fetch(server, queries=[(str(t), {"query": "red"}) for t in range(10)], concurrency=1,
                                  breaker=3)  # fmt: skip
    assert [r.failure.startswith("not sent") for r in results] == [False] * 3 + [True] * 7
    assert fetcher.requests_made == 3


def test_an_engines_largest_page_is_respected():
    with search_server(max_page=2) as server:
        endpoint = Endpoint(engine="elasticsearch", url=server.url, index="docs", max_page=2)
        with outbound.outbound_client() as client:
            (result,) = Fetcher(client, endpoint, Policy(depth=5, page_size=100)).fetch([("1", {"query": "red"})])
    assert result.failure is None and all(json.loads(r["body"])["size"] <= 2 for r in server.requests)


def test_a_json_api_is_read_through_jmespath_with_its_query_url_encoded():
    with search_server() as server:
        endpoint = Endpoint(engine="json", url="", url_template=server.url + "/docs/_search?q={{query}}",
                            template='{"query": {"match": {"query": "{{query}}"}}, "from": "{{from}}"}',
                            results_path="hits.hits", id_path="_id", score_path="_score")  # fmt: skip
        with outbound.outbound_client() as client:
            (result,) = Fetcher(client, endpoint, Policy(depth=3, page_size=3)).fetch([("1", {"query": "red & pears"})])
    assert [h.docid for h in result.hits] == [d for d, _ in server.ranked("red pears")][:3]
    assert "q=red%20%26%20pears" in server.requests[0]["path"] or server.requests[0]["path"].endswith("_search")


def _command(tmp_path, server, *options, env=None):
    topics = tmp_path / "topics.tsv"
    topics.write_text('1\tred apples\n2\tpears "and" \\ grapes\n3\tnothing matches this\n')
    out = tmp_path / "live.run"
    command = [sys.executable, "-m", "judging.search_fetch", str(topics), "--url", server.url, "--index", "docs",
               "--depth", "5", "--page-size", "2", "--out", str(out), "--json", *options]  # fmt: skip
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=120, env=env or os.environ)
    return done, out


@pytest.mark.parametrize("engine", ["elasticsearch", "solr"])
def test_the_command_writes_the_run_and_says_what_it_fetched(tmp_path, engine):
    with search_server() as server:
        done, out = _command(tmp_path, server, "--engine", engine)
    assert done.returncode == 0, done.stderr
    said = json.loads(done.stdout)
    assert (said["queries"], said["fetched"], said["failed"]) == (3, 3, [])
    lines = out.read_text().splitlines()
    assert lines[0].split()[:3] == ["1", "Q0", server.ranked("red apples")[0][0]] and not any(
        line.startswith("3 ") for line in lines)  # fmt: skip


def test_the_command_sends_the_secret_never_prints_it_and_exits_1_on_a_hole(tmp_path):
    with search_server() as server:
        env = {**os.environ, "WORKBENCH_SECRET_SEARCH": "Bearer s3cret-value"}  # with the server's address allowed
        server.faults = ["400"]
        done, _ = _command(tmp_path, server, "--engine", "elasticsearch", "--auth-header-env",
                           "WORKBENCH_SECRET_SEARCH", "--concurrency", "1", env=env)  # fmt: skip
        assert {r["authorization"] for r in server.requests} == {"Bearer s3cret-value"}
    assert done.returncode == 1
    assert json.loads(done.stdout)["failed"] == [{"topic": "1", "reason": "HTTP 400"}]
    assert "s3cret" not in done.stdout + done.stderr


def test_bad_input_exits_2_naming_it(tmp_path):
    with search_server() as server:
        template = tmp_path / "t.json"
        template.write_text('{"query": "{{boost}}"}')
        done, _ = _command(tmp_path, server, "--engine", "elasticsearch", "--template", str(template))
        assert done.returncode == 2 and "{{boost}}" in done.stderr
        done, _ = _command(tmp_path, server, "--engine", "elasticsearch", "--auth-header-env", "OPENAI_KEY")
        assert done.returncode == 2 and "WORKBENCH_SECRET_" in done.stderr
