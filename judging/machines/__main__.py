"""`python -m judging.machines TOPICS DOCUMENTS PAIRS --base-url URL --model NAME ... --json`: a machine
judge's labels for every (topic, docno) pair of a TREC run or qrels file, from any OpenAI-compatible server, with no
database. TOPICS and DOCUMENTS are in any format the imports read. With the same --cache, a rerun sends no request
for a pair already answered.

Prints {"labels": [{"topic", "docno", "grade", "explanation"}], "failures": [{"topic", "docno", "reason"}],
"requests": N, "cached": N, "tokens": {"prompt": N, "completion": N}}. Exit status 0 when every pair was
labelled, 1 when some failed, 2 on bad input.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from config.core.secrets import secret_name_problem
from judging.imports.core.documents import parse_documents
from judging.imports.core.problems import Problems
from judging.imports.core.topics import parse_topics
from judging.machines.core.cache import ReplyCache
from judging.machines.core.client import Budget, ChatClient, ServerConfig
from judging.machines.core.judge import TopicText, judge_pairs
from judging.machines.core.prompts import TEMPLATES, custom
from measures.trec_files import TrecFormatError, qrels_lines, run_lines


def _scale(text: str) -> tuple[int, int]:
    low, _, high = text.partition("-")
    try:
        scale = (int(low), int(high))
    except ValueError as error:
        raise argparse.ArgumentTypeError(f"expected LOW-HIGH, e.g. 0-3, got {text!r}") from error
    if scale[0] >= scale[1]:
        raise argparse.ArgumentTypeError(f"the scale's low end must be below its high end, got {text!r}")
    return scale


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m judging.machines",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("topics", type=Path)
    parser.add_argument("documents", type=Path)
    parser.add_argument("pairs", type=Path, help="a TREC run or qrels file: each (topic, docno) in it is judged once")
    parser.add_argument("--base-url", required=True, help="the server's OpenAI-compatible base, e.g. http://host/v1")
    parser.add_argument("--model", required=True)
    parser.add_argument("--prompt", default="umbrela", help=f"{', '.join(TEMPLATES)}, or a template FILE")
    parser.add_argument("--scale", type=_scale, help="the grades to map onto, e.g. 0-3 (default: the prompt's)")
    parser.add_argument("--concurrency", type=int, default=4)
    parser.add_argument("--requests-per-minute", type=float)
    parser.add_argument("--timeout", type=float, default=60.0)
    parser.add_argument("--retries", type=int, default=3)
    parser.add_argument("--budget-requests", type=int, help="stop sending after this many requests")
    parser.add_argument("--budget-tokens", type=int, help="stop sending after this many tokens")
    parser.add_argument(
        "--batch",
        choices=("pair", "topic"),
        default="pair",
        help="pair: one call per pair; topic: one call per topic's documents (up to 20), JSON ratings back",
    )
    parser.add_argument("--cache", type=Path, help="a folder keeping every reply (reruns send no request twice)")
    parser.add_argument(
        "--api-key-env", help="the WORKBENCH_SECRET_* environment variable holding the API key (never the key)"
    )
    parser.add_argument("--json", action="store_true", help="print the result as JSON (the only output format)")
    return parser


def _template(prompt: str, scale):
    if prompt in TEMPLATES:
        return TEMPLATES[prompt]
    path = Path(prompt)
    if not path.is_file():
        raise ValueError(f"--prompt {prompt!r}: neither a built-in template ({', '.join(TEMPLATES)}) nor a file")
    return custom(path.read_text(), scale=scale or (0, 3), name=path.name)


def _pairs(path: Path) -> list[tuple[str, str]]:
    """Every (topic, docno) of a run file or, failing that, of a qrels file, in file order."""
    try:
        return [(line.topic, line.docno) for line in run_lines(path)]
    except TrecFormatError:
        return [(line.topic, line.docno) for line in qrels_lines(path)]


def _read(args) -> tuple[dict, dict, list]:
    problems = Problems()
    topics = {
        t.number: TopicText(t.title, t.description, t.narrative)
        for t in parse_topics(args.topics, problems, name=args.topics.name)
    }
    documents = {
        d.docno: " ".join(part for part in (d.title, d.body) if part)
        for d in parse_documents(args.documents, problems, name=args.documents.name)
    }
    if problems.count:
        raise ValueError(problems.summary())
    return topics, documents, _pairs(args.pairs)


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        template = _template(args.prompt, args.scale)
        topics, documents, pairs = _read(args)
    except (OSError, ValueError, TrecFormatError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    problem = args.api_key_env and secret_name_problem(args.api_key_env)
    if problem:
        print(f"error: --api-key-env: {problem}", file=sys.stderr)
        return 2
    config = ServerConfig(
        base_url=args.base_url,
        model=args.model,
        api_key_env=args.api_key_env,
        timeout=args.timeout,
        retries=args.retries,
        requests_per_minute=args.requests_per_minute,
    )
    client = ChatClient(config, budget=Budget(requests=args.budget_requests, tokens=args.budget_tokens))
    run = judge_pairs(
        pairs,
        topics=topics,
        documents=documents,
        template=template,
        client=client,
        cache=ReplyCache(args.cache),
        scale=args.scale,
        concurrency=args.concurrency,
        batch=args.batch,
    )
    print(json.dumps(run.as_dict(), ensure_ascii=False))
    return 0 if not run.failures else 1


if __name__ == "__main__":
    raise SystemExit(main())
