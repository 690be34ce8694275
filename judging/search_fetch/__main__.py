"""`python -m judging.search_fetch TOPICS --engine elasticsearch|opensearch|solr|json --url URL ... --out RUN --json`:
a query set fetched from a live search engine into a TREC run, with no database. TOPICS in any format the imports
read; the query is a topic's title, and `{{description}}`, `{{narrative}}` and `--variable NAME=VALUE` tuning
variables are there for the template too.

Elasticsearch/OpenSearch: POST {url}/{index}/_search with the template's JSON body (default: a multi_match of the
query), `from` and `size` added. Solr: GET {url}/select with the template's name=value lines (default: q and
edismax), start, rows, fl=id,score and wt=json added. json: --method, the URL (--url, with placeholders) and body
(--template) templates, the results, id and score picked by JMESPath (--results, --id, --score).

RUN ranks each query's documents in the engine's order (as trec_eval reads it), with no line for a query that
failed. Prints {"queries", "fetched", "failed": [{"topic", "reason"}], "requests", "run"}; exit 0 when every query
succeeded, 1 when some failed, 2 on bad input. --auth-header-env names a WORKBENCH_SECRET_* variable whose value
is sent as the Authorization header and never printed.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from tqdm import tqdm

from config.core import outbound
from config.core.secrets import secret_name_problem, secret_value
from judging.imports.core.problems import Problems
from judging.imports.core.topics import parse_topics
from judging.search_fetch.core.engines import DEFAULT_TEMPLATES, ENGINES, Endpoint, expression_problem
from judging.search_fetch.core.fetch import Fetcher, Policy, run_lines
from judging.search_fetch.core.templates import TemplateError


def _variable(text: str) -> tuple[str, str]:
    name, sep, value = text.partition("=")
    if not sep or not name.isidentifier():
        raise argparse.ArgumentTypeError(f"write NAME=VALUE, got {text!r}")
    return name, value


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m judging.search_fetch", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("topics", type=Path)
    parser.add_argument("--engine", choices=tuple(ENGINES), required=True)
    parser.add_argument("--url", required=True, help="the engine's base URL (json: the request URL's template)")
    parser.add_argument("--index", default="", help="the index (Elasticsearch, OpenSearch) or core (Solr)")
    parser.add_argument("--template", type=Path, help="the body (JSON) or parameters (Solr) template file")
    parser.add_argument("--variable", type=_variable, action="append", default=[], help="NAME=VALUE, repeatable")
    parser.add_argument("--method", default="POST", help="json: the HTTP method")
    parser.add_argument("--results", default="", help="json: JMESPath to the results list")
    parser.add_argument("--id", default="id", help="json: JMESPath, within a result, to its document id")
    parser.add_argument("--score", default="", help="json: JMESPath, within a result, to its score")
    parser.add_argument("--depth", type=int, default=100, help="documents per query, up to 1,000 (TREC depth)")
    parser.add_argument("--page-size", type=int, default=100)
    parser.add_argument("--tag", default="live", help="the run's tag")
    parser.add_argument("--concurrency", type=int, default=4)
    parser.add_argument("--rate", type=float, help="at most this many requests a second")
    parser.add_argument("--timeout", type=float, default=10.0, help="one request's whole deadline, in seconds")
    parser.add_argument("--retries", type=int, default=3, help="retries of a 429 or 5xx answer")
    parser.add_argument("--auth-header-env", help="a WORKBENCH_SECRET_* variable sent as the Authorization header")
    parser.add_argument("--ca-bundle", help="a CA bundle file to verify the engine's TLS certificate against")
    parser.add_argument("--out", type=Path, required=True, help="where to write the TREC run")
    parser.add_argument("--json", action="store_true", help="print the result as JSON (the only output format)")
    return parser


def _problem(args) -> str | None:
    if not 1 <= args.depth <= 10_000:
        return "--depth: between 1 and 10,000"
    if not 1 <= args.page_size <= 10_000 or not 1 <= args.concurrency <= 64:
        return "--page-size: 1 to 10,000; --concurrency: 1 to 64"
    if args.auth_header_env and (problem := secret_name_problem(args.auth_header_env)):
        return f"--auth-header-env: {problem}"
    for option in ("results", "id", "score"):
        if getattr(args, option) and (problem := expression_problem(getattr(args, option))):
            return f"--{option}: {problem}"
    return None


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    problem = _problem(args)
    problems = Problems()
    try:
        topics = list(parse_topics(args.topics, problems, name=args.topics.name)) if not problem else []
        template = args.template.read_text() if args.template else DEFAULT_TEMPLATES[args.engine]
    except OSError as error:
        problem = str(error)
    if problem or problems.count:
        print(f"error: {problem or problems.summary()}", file=sys.stderr)
        return 2
    endpoint = Endpoint(
        engine=args.engine, url=args.url, index=args.index, template=template, method=args.method,
        url_template=args.url if args.engine == "json" else "", results_path=args.results, id_path=args.id,
        score_path=args.score,
    )  # fmt: skip
    policy = Policy(depth=args.depth, page_size=args.page_size, timeout=args.timeout, retries=args.retries,
                    concurrency=args.concurrency, rate=args.rate)  # fmt: skip
    headers = {"Authorization": secret_value(args.auth_header_env)} if args.auth_header_env else {}
    variables = dict(args.variable)
    queries = [(t.number, {**variables, "query": t.title, "description": t.description, "narrative": t.narrative})
               for t in topics]  # fmt: skip
    try:  # a template that cannot render is bad input, not a hole per query
        if queries:
            ENGINES[args.engine].request(endpoint, queries[0][1], 0, policy.page_size)
    except TemplateError as error:
        print(f"error: --template: {error}", file=sys.stderr)
        return 2
    client = outbound.outbound_client(connections=policy.concurrency, ca_bundle=args.ca_bundle)
    with contextlib.closing(client), tqdm(total=len(queries), unit="query", file=sys.stderr, disable=None) as bar:
        fetcher = Fetcher(client, endpoint, policy, headers=headers)
        results = fetcher.fetch(queries, on_result=lambda result: bar.update(1))
    args.out.write_text("".join(line + "\n" for line in run_lines(results, args.tag)))
    failed = [{"topic": r.topic, "reason": r.failure} for r in results if r.failure]
    print(json.dumps({"queries": len(results), "fetched": len(results) - len(failed), "failed": failed,
                      "requests": fetcher.requests_made, "run": str(args.out)}))  # fmt: skip
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
