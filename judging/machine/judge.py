"""Pairs in, labels and failures out: each (topic, document) pair rendered with its template, answered from the
cache or by the server, its grade read and mapped onto the collection's scale. A pair whose reply fails or does not
parse is a failure with its reason, never a guessed grade."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

from .cache import ReplyCache
from .client import ChatClient
from .prompts import PromptReplyError, Template, grade_of, render


@dataclass(frozen=True)
class TopicText:
    title: str
    description: str = ""
    narrative: str = ""


@dataclass
class JudgeRun:
    labels: list[dict] = field(default_factory=list)
    failures: list[dict] = field(default_factory=list)
    requests: int = 0
    cached: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0

    def as_dict(self) -> dict:
        return {
            "labels": self.labels,
            "failures": self.failures,
            "requests": self.requests,
            "cached": self.cached,
            "tokens": {"prompt": self.prompt_tokens, "completion": self.completion_tokens},
        }


def mapped(grade: int, source: tuple[int, int], target: tuple[int, int]) -> int:
    """A grade on the template's scale as a grade of the collection's: the same when the scales are, else the
    nearest of the target's (lowest to lowest, highest to highest, evenly between)."""
    if source == target:
        return grade
    (low, high), (to_low, to_high) = source, target
    return to_low + round((grade - low) * (to_high - to_low) / (high - low))


def judge_pairs(
    pairs: Iterable[tuple[str, str]],
    *,
    topics: Mapping[str, TopicText],
    documents: Mapping[str, str],
    template: Template,
    client: ChatClient,
    cache: ReplyCache,
    scale: tuple[int, int] | None = None,
    concurrency: int = 1,
    budget_words: int = 400,
) -> JudgeRun:
    """Judges every distinct pair once. A pair whose topic or document is unknown is a failure."""
    run, scale = JudgeRun(), scale or template.scale
    identity = client.config.identity()
    todo = list(dict.fromkeys(pairs))

    def one(pair: tuple[str, str]) -> tuple[tuple[str, str], dict | None, str | None, bool]:
        topic_id, docno = pair
        if topic_id not in topics or docno not in documents:
            return pair, None, "unknown topic" if topic_id not in topics else "unknown document", False
        key = ReplyCache.key(identity, template.version, topic_id, docno)
        stored = cache.get(key)
        if stored is not None:
            return pair, stored, None, True
        topic = topics[topic_id]
        prompt = render(template, title=topic.title, description=topic.description, narrative=topic.narrative,
                        document=documents[docno], budget_words=budget_words)  # fmt: skip
        reply = client.complete(prompt)
        answer = {"text": reply.text, "prompt_tokens": reply.prompt_tokens,
                  "completion_tokens": reply.completion_tokens, "attempts": reply.attempts}  # fmt: skip
        if reply.error is not None:
            return pair, answer, reply.error, False
        cache.put(key, answer)
        return pair, answer, None, False

    with ThreadPoolExecutor(max_workers=max(1, concurrency)) as pool:
        for (topic_id, docno), answer, error, from_cache in pool.map(one, todo):
            if answer is not None and not from_cache:
                run.requests += answer.get("attempts", 1)
                run.prompt_tokens += answer["prompt_tokens"]
                run.completion_tokens += answer["completion_tokens"]
            run.cached += from_cache
            if error is None:
                try:
                    grade = mapped(grade_of(template, answer["text"]), template.scale, scale)
                except PromptReplyError as refusal:
                    error = str(refusal)
            if error is not None:
                run.failures.append({"topic": topic_id, "docno": docno, "reason": error})
            else:
                run.labels.append({"topic": topic_id, "docno": docno, "grade": grade, "explanation": answer["text"]})
    return run
