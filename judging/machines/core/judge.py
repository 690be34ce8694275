"""Pairs in, labels and failures out: each (topic, document) pair rendered with its template, answered from the
cache or by the server, its grade read and mapped onto the collection's scale. A pair whose reply fails or does not
parse is a failure with its reason, never a guessed grade.

Two ways to ask (`batch`): "pair", one call per pair; "topic", one call per topic with up to BATCH_SIZE of its
documents listed and a JSON rating of each asked back (as OpenSearch's relevance workbench does). Either way every
pair's answer is cached under its own key, so a rerun in either mode asks only for what no reply covers.

With `samples` k > 1 (one pair a call), a pair is asked k times; its grade is the votes' majority (a tie goes to
the lower middle of the tied grades) and its result carries every vote, whose shares are the label's confidence.
"""

from __future__ import annotations

import itertools
import threading
import time
from collections import Counter, deque
from collections.abc import Callable, Iterable, Mapping
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as StillWaiting
from dataclasses import dataclass, field

from judging.machines.core.cache import ReplyCache
from judging.machines.core.client import ChatClient, ServerConfig
from judging.machines.core.prompts import PromptReplyError, Template, batch_grades, grade_of, render, render_batch

BATCH_SIZE = 20
# A judge asked several times per pair samples at this temperature (at 0 every sample would be the same).
SAMPLING_TEMPERATURE = 0.7
STOP_POLL = 0.5  # seconds between looks at `stop` while a call is under way
CANCELLED = "cancelled"


@dataclass(frozen=True)
class TopicText:
    title: str
    description: str = ""
    narrative: str = ""


@dataclass(frozen=True)
class PairResult:
    """One pair's outcome: a grade on the collection's scale, or the reason there is none; with the reply's text,
    its share of the call's tokens and time, and whether it came from the cache."""

    topic: str
    docno: str
    grade: int | None
    failure: str | None
    reply: str | None
    prompt_tokens: int = 0
    completion_tokens: int = 0
    seconds: float = 0.0
    cached: bool = False
    budget_spent: bool = False  # refused because the run's budget is spent: no call was made
    votes: tuple[int, ...] | None = None  # each sample's grade, when the pair was asked more than once
    batch: str | None = None  # the server's batch that answered it (the Batch API), and its line's custom_id
    custom_id: str | None = None


def majority(votes) -> int:
    """The most frequent grade; among tied grades the lower middle one (a 1-1 tie of 1 and 3 is 1, not 2: only a
    grade someone gave is a label)."""
    counts = Counter(votes)
    top = max(counts.values())
    tied = sorted(grade for grade, count in counts.items() if count == top)
    return tied[(len(tied) - 1) // 2]


@dataclass
class JudgeRun:
    labels: list[dict] = field(default_factory=list)
    failures: list[dict] = field(default_factory=list)
    requests: int = 0
    cached: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    budget_spent: bool = False  # some pair was refused because the budget is spent
    batches: list[dict] | None = None  # the Batch API's batches, as the server last said: {"id", "status", ...}

    def as_dict(self) -> dict:
        out = {
            "labels": self.labels,
            "failures": self.failures,
            "requests": self.requests,
            "cached": self.cached,
            "tokens": {"prompt": self.prompt_tokens, "completion": self.completion_tokens},
        }
        if self.batches is not None:
            out["batches"] = self.batches
        return out

    def add(self, result: PairResult) -> None:
        self.cached += result.cached
        self.budget_spent |= result.budget_spent
        if not result.cached:
            self.prompt_tokens += result.prompt_tokens
            self.completion_tokens += result.completion_tokens
        if result.failure is not None:
            self.failures.append({"topic": result.topic, "docno": result.docno, "reason": result.failure})
        else:
            label = {"topic": result.topic, "docno": result.docno, "grade": result.grade, "explanation": result.reply}
            if result.votes is not None:
                label["votes"] = list(result.votes)
            self.labels.append(label)


def mapped(grade: int, source: tuple[int, int], target: tuple[int, int], mapping: Mapping | None = None) -> int:
    """A grade on the template's scale as a grade of the collection's: `mapping`'s ({template grade: collection
    grade}, keys as text or numbers) where it names one; else the same when the scales are, else the nearest of the
    target's (lowest to lowest, highest to highest, evenly between)."""
    if mapping:
        for key in (grade, str(grade)):
            if key in mapping:
                return int(mapping[key])
    if source == target:
        return grade
    (low, high), (to_low, to_high) = source, target
    return to_low + round((grade - low) * (to_high - to_low) / (high - low))


Stop = Callable[[], bool]


@dataclass
class _Calls:
    """What the calls' threads report back: the requests made (retries included), counted under a lock."""

    requests: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, count: int) -> None:
        with self.lock:
            self.requests += count


@dataclass
class Asking:
    """How one run asks: the template, the texts, the client and its cache; `ask` answers one group of pairs (a
    pair, or up to BATCH_SIZE of a topic's) from the cache where every pair is there, else by one call. The batch
    mode (core/batches.py) renders and reads through the same one, with no chat client (`config` says what a
    reply depends on)."""

    topics: Mapping[str, TopicText]
    documents: Mapping[str, str]
    template: Template
    client: ChatClient | None
    cache: ReplyCache
    scale: tuple[int, int]
    mapping: Mapping | None
    budget_words: int
    batch: str
    samples: int = 1
    calls: _Calls = field(default_factory=_Calls)
    halted: threading.Event = field(default_factory=threading.Event)  # the caller raised: start no more calls
    config: ServerConfig | None = None  # the server's, when there is no client

    def key(self, topic_id: str, docno: str) -> str:
        version = self.template.version + (f"/samples-{self.samples}" if self.samples > 1 else "")
        return ReplyCache.key((self.config or self.client.config).identity(), version, topic_id, docno)

    def unknown(self, topic_id: str, docno: str) -> PairResult | None:
        """The failure of a pair whose topic or document the run has no text of, else None."""
        if topic_id in self.topics and docno in self.documents:
            return None
        reason = "unknown topic" if topic_id not in self.topics else "unknown document"
        return PairResult(topic_id, docno, None, reason, None)

    def ask(self, group: list[tuple[str, str]]) -> list[PairResult] | None:
        if self.halted.is_set() or self.client.abort.is_set():
            return None
        results, missing = [], []
        for topic_id, docno in group:
            unknown = self.unknown(topic_id, docno)
            if unknown is not None:
                results.append(unknown)
                continue
            stored = self.cache.get(self.key(topic_id, docno))
            if stored is not None:
                results.append(self.outcome(topic_id, docno, stored, cached=True, error=None))
            else:
                missing.append((topic_id, docno))
        if missing:
            results.extend(self.call(missing))
        return results

    def prompt(self, missing: list[tuple[str, str]]) -> str:
        """One topic's prompt: for its first pair, or (batch "topic") for all of `missing`, which share a topic."""
        topic = self.topics[missing[0][0]]
        texts = {"title": topic.title, "description": topic.description, "narrative": topic.narrative}
        if self.batch == "topic":
            listed = [(docno, self.documents[docno]) for _, docno in missing]
            return render_batch(self.template, **texts, documents=listed, budget_words=self.budget_words)
        return render(self.template, **texts, document=self.documents[missing[0][1]], budget_words=self.budget_words)

    def call(self, missing: list[tuple[str, str]]) -> list[PairResult]:
        """One call for `missing` (or `samples` calls for its one pair): each pair's share of the tokens and time,
        its reply cached unless a call failed."""
        started = time.monotonic()
        prompt = self.prompt(missing)
        replies = [self.client.complete(prompt)]
        while len(replies) < self.samples and replies[-1].error is None:
            replies.append(self.client.complete(prompt))
        failed = next((r for r in replies if r.error is not None), None)
        share = len(missing)
        answer = {
            "text": replies[-1].text,
            "prompt_tokens": sum(r.prompt_tokens for r in replies) // share,
            "completion_tokens": sum(r.completion_tokens for r in replies) // share,
            "seconds": (time.monotonic() - started) / share,
            "batch": self.batch == "topic",
        }
        if self.samples > 1:
            answer["texts"] = [r.text for r in replies]
        if failed is None:
            for pair in missing:
                self.cache.put(self.key(*pair), answer)
        self.calls.add(sum(r.attempts for r in replies))
        error, spent = (failed.error, failed.budget_spent) if failed else (None, False)
        return [self.outcome(*pair, answer, cached=False, error=error, budget_spent=spent) for pair in missing]

    def outcome(self, topic_id, docno, answer: dict, *, cached: bool, error: str | None, budget_spent=False):
        """The pair's result: its grade read from the answer (each sample's, and their majority) and mapped onto the
        collection's scale, or why not."""
        grade, votes = None, None
        if error is None:
            try:
                if answer.get("texts"):
                    votes = tuple(self.grade(docno, text, batch=False) for text in answer["texts"])
                    grade = majority(votes)
                else:
                    grade = self.grade(docno, answer["text"], batch=answer.get("batch"))
            except KeyError:
                error = "the batch reply rates no such document"
            except PromptReplyError as refusal:
                error = str(refusal)
        return PairResult(
            topic_id, docno, grade, error, answer.get("text"), answer.get("prompt_tokens", 0),
            answer.get("completion_tokens", 0), answer.get("seconds", 0.0), cached, budget_spent,
            None if error else votes,
        )  # fmt: skip

    def grade(self, docno: str, text: str, *, batch: bool) -> int:
        raw = batch_grades(self.template, text)[docno] if batch else grade_of(self.template, text)
        return mapped(raw, self.template.scale, self.scale, self.mapping)


def judge_pairs(
    pairs: Iterable[tuple[str, str]],
    *,
    topics: Mapping[str, TopicText],
    documents: Mapping[str, str],
    template: Template,
    client: ChatClient,
    cache: ReplyCache,
    scale: tuple[int, int] | None = None,
    mapping: Mapping | None = None,
    concurrency: int = 1,
    budget_words: int = 400,
    batch: str = "pair",
    samples: int = 1,
    on_result: Callable[[PairResult], None] | None = None,
    stop: Stop | None = None,
) -> JudgeRun:
    """Judges every distinct pair once, `concurrency` calls at a time. A pair whose topic or document is unknown is
    a failure. `on_result` is called with each pair's PairResult in the calling thread, as results arrive (a
    database write belongs there, not in the calls' threads). `stop` is asked in the calling thread only, as results
    arrive and every STOP_POLL seconds while calls are under way: once it is true no new call starts and the calls
    under way are aborted (the client's `abort`); the pairs not answered are left out of the result (neither labelled
    nor failed). A pair refused because the budget is spent is a failure with `budget_spent` set, and so is the run.
    `samples` > 1 asks each pair that many times (batch "pair" only)."""
    if samples > 1 and batch != "pair":
        raise ValueError("samples need one pair a call (batch 'pair')")
    asking = Asking(
        topics, documents, template, client, cache, scale or template.scale, mapping, budget_words, batch, samples
    )  # fmt: skip
    run = JudgeRun()
    groups = iter(request_groups(list(dict.fromkeys(pairs)), batch))
    width = max(1, concurrency)
    stop = stop or (lambda: False)
    with ThreadPoolExecutor(max_workers=width) as pool:
        # At most `width` calls ahead of the results handed over: a crash loses at most their replies.
        window = deque(pool.submit(asking.ask, group) for group in itertools.islice(groups, width))
        try:
            while window:
                results = _waited(window.popleft(), stop, client.abort)
                if stop():
                    client.abort.set()
                window.extend(pool.submit(asking.ask, group) for group in itertools.islice(groups, 1))
                for result in _answered(results or (), client.abort):
                    run.add(result)
                    if on_result is not None:
                        on_result(result)
        except BaseException:
            asking.halted.set()
            pool.shutdown(cancel_futures=True)
            raise
    run.requests = asking.calls.requests
    return run


def _answered(results: Iterable[PairResult], abort: threading.Event) -> Iterable[PairResult]:
    """The results that answer their pair: a call cut short by a cancel answers nothing (a later run asks again)."""
    return (r for r in results if not (r.failure == CANCELLED and abort.is_set()))


def _waited(future, stop: Stop, abort: threading.Event):
    """The future's result, aborting the calls under way as soon as `stop()` turns true."""
    while True:
        try:
            return future.result(timeout=STOP_POLL)
        except StillWaiting:
            if not abort.is_set() and stop():
                abort.set()


def request_groups(todo: list[tuple[str, str]], batch: str) -> list[list[tuple[str, str]]]:
    if batch != "topic":
        return [[pair] for pair in todo]
    by_topic: dict[str, list[tuple[str, str]]] = {}
    for pair in todo:
        by_topic.setdefault(pair[0], []).append(pair)
    return [pairs[i : i + BATCH_SIZE] for pairs in by_topic.values() for i in range(0, len(pairs), BATCH_SIZE)]
