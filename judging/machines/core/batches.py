"""Judging through the Batch API, in rounds: the pairs not in the cache are written as request lines (one per pair,
or per topic group with --batch topic, and per sample), each the very request the online mode sends, with a
`custom_id` that is the same for a group and sample every time it is sent; the lines go up in files of at most
`max_requests` lines and `max_bytes` bytes, one batch each; every batch is looked at, at least `poll_seconds`
apart and less often while it does not change, until it ends; its output and error files are read back and each
answer read by the same adapter and prompt reader as an online answer.

What is sent again, in a later round (up to `rounds` sends of a line, never online): a line with no output line
(a partial output, an expired, failed or cancelled batch), a line the server answered with a status worth another
try (429, 5xx) or an error such as `batch_expired`. What is never sent again: an answered line, whether or not its
answer reads as a grade (an unreadable answer is a failure by class, as online), nor a refusal that would only be
repeated (400, 401, 404; an invalid request). A line out of sends is a failure naming its last reason.

Where the batches are kept is the caller's (`Ledger`): the database in the app, so a restarted worker passes the
batches still under way as `resumed` and polls them instead of sending their lines again; memory on the command
line. A stop cancels the batches under way on the server and returns; their answers are read by a later run.
"""

from __future__ import annotations

import hashlib
import json
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Protocol

from config.core.outbound import RETRIED_STATUSES
from judging.machines.core.adapters import OpenAIChat
from judging.machines.core.batch_api import ENDPOINT, TERMINAL, BatchApi, BatchCallFailed, ServerBatch
from judging.machines.core.cache import ReplyCache
from judging.machines.core.client import BUDGET_SPENT, MAX_DETAIL_CHARS, Budget
from judging.machines.core.judge import Asking, JudgeRun, PairResult, Stop, TopicText, request_groups
from judging.machines.core.prompts import Template

MAX_ROUNDS = 5
MAX_REQUESTS, MAX_BYTES = 50_000, 200_000_000  # OpenAI's limits of one batch's input file
POLL_GROWTH, POLL_CAP = 1.5, 8.0  # an unchanged batch is looked at 1.5x less often, up to 8x poll_seconds apart
STOP_POLL = 0.5
MAX_LOOK_FAILURES = 10  # looks in a row at a batch the server does not answer (each after its retries) before
# its lines are sent again: at the longest interval, about an hour and a half of a server that lost it or is down
# Errors of a line that another send would only repeat; any other error code (batch_expired, server_error, ...) is
# worth sending again.
FINAL_CODES = frozenset({"invalid_request", "invalid_request_error", "context_length_exceeded", "model_not_found"})
NO_LINE = {"failed": "batch failed", "expired": "batch expired", "cancelled": "batch cancelled"}

Pair = tuple[str, str]


@dataclass(frozen=True)
class BatchLimits:
    max_requests: int = MAX_REQUESTS
    max_bytes: int = MAX_BYTES
    poll_seconds: float = 60.0
    rounds: int = MAX_ROUNDS


@dataclass
class BatchUnderWay:
    """A batch sent and not yet read back, as the run's ledger keeps it."""

    id: str
    round: int
    custom_ids: list[str]
    status: str = "validating"
    output_file_id: str | None = None
    error_file_id: str | None = None
    completed: int = 0
    failed: int = 0
    errors: str = ""
    polled_at: float = field(default_factory=time.time)  # wall time of the last look (or of the send)
    interval: float = 0.0
    download_failures: int = 0
    look_failures: int = 0  # looks in a row that the server did not answer

    def took(self, said: ServerBatch) -> bool:
        """Takes what the server said; whether anything changed."""
        before = (self.status, self.completed, self.failed)
        self.status, self.completed, self.failed = said.status, said.completed, said.failed
        self.output_file_id, self.error_file_id = said.output_file_id, said.error_file_id
        self.errors = said.errors or self.errors
        return before != (self.status, self.completed, self.failed)

    def report(self) -> dict:
        return {"id": self.id, "status": self.status, "requests": len(self.custom_ids), "completed": self.completed,
                "failed": self.failed}  # fmt: skip


class Ledger(Protocol):
    """Where a run keeps its batches: `submitted` once sent, `polled` on every look, `collected` once its answers
    went to `on_result` (after which it is never read again)."""

    def submitted(self, batch: BatchUnderWay) -> None: ...
    def polled(self, batch: BatchUnderWay) -> None: ...
    def collected(self, batch: BatchUnderWay) -> None: ...


class MemoryLedger:
    def submitted(self, batch: BatchUnderWay) -> None:
        pass

    def polled(self, batch: BatchUnderWay) -> None:
        pass

    def collected(self, batch: BatchUnderWay) -> None:
        pass


def custom_id(group: Sequence[Pair], sample: int) -> str:
    """The line's id: the same for a group of pairs and a sample whenever it is sent, so an answer is matched to
    what asked for it whatever batch it comes back in."""
    digest = hashlib.sha256("\n".join(f"{t}\t{d}" for t, d in group).encode()).hexdigest()[:32]
    return f"pairs-{digest}-s{sample}"


@dataclass(frozen=True)
class LineAnswer:
    """What came back for a line: the model's text, or a failure; whether to send the line again."""

    text: str | None
    error: str | None
    prompt_tokens: int = 0
    completion_tokens: int = 0
    resend: bool = False


def read_lines(content: bytes, adapter=None) -> dict[str, LineAnswer]:
    """An output or error file's lines by custom_id. A line that is not JSON or names no custom_id matches
    nothing (its line, unanswered, is sent again)."""
    adapter = adapter or OpenAIChat()
    out: dict[str, LineAnswer] = {}
    for raw in content.splitlines():
        try:
            line = json.loads(raw)
            cid = line["custom_id"]
        except (ValueError, KeyError, TypeError):
            continue
        out[str(cid)] = _answer(line, adapter)
    return out


def _answer(line: dict, adapter) -> LineAnswer:
    response, error = line.get("response"), line.get("error")
    if isinstance(response, dict) and response.get("status_code") is not None:
        status, body = response.get("status_code"), response.get("body")
        if status == 200:
            parsed = adapter.read(body)
            return LineAnswer(parsed.text, parsed.error, parsed.prompt_tokens, parsed.completion_tokens)
        failure = f"HTTP {status}"
        if status in RETRIED_STATUSES:
            return LineAnswer(None, failure, resend=True)
        message = body.get("error", {}).get("message") if isinstance(body, dict) else None
        if isinstance(body, dict) and isinstance(body.get("error"), dict) and isinstance(message, str):
            failure += ": " + " ".join(message.split())[:MAX_DETAIL_CHARS]
        return LineAnswer(None, failure)
    if isinstance(error, dict):
        code = str(error.get("code") or error.get("message") or "no answer")[:MAX_DETAIL_CHARS]
    else:
        code = str(error or "no answer")[:MAX_DETAIL_CHARS]
    return LineAnswer(None, code, resend=code not in FINAL_CODES)


@dataclass
class _Round:
    """One run's state: the lines, what came back for each, the batches under way, what is to send."""

    asking: Asking
    api: BatchApi
    limits: BatchLimits
    budget: Budget
    ledger: Ledger
    emit: Callable[[PairResult], None]
    lines: dict[str, tuple[tuple[Pair, ...], int]] = field(default_factory=dict)  # custom_id -> (group, sample)
    got: dict[tuple[Pair, ...], dict[int, LineAnswer]] = field(default_factory=dict)
    ended: set = field(default_factory=set)  # groups whose pairs have their results
    tries: dict[str, int] = field(default_factory=dict)
    open: list[BatchUnderWay] = field(default_factory=list)
    every: list[BatchUnderWay] = field(default_factory=list)
    sent: int = 0
    round: int = 0

    def body(self, group: tuple[Pair, ...]) -> dict:
        config = self.api.config
        request = OpenAIChat().request(
            base_url=config.base_url, model=config.model, prompt=self.asking.prompt(list(group)),
            temperature=config.temperature, max_tokens=config.max_tokens, key=None,
        )  # fmt: skip
        return request.body

    def send(self, todo: list[str]) -> list[str]:
        """Sends `todo`'s lines as files within the limits, a batch each, each file sent once it is full (one file
        in memory at a time); a group the budget refuses ends as budget-spent, its lines unsent. Returns the lines
        of files the server refused that have sends left."""
        self.round += 1
        refused, current, size, number, last = [], [], 0, 0, (None, None)
        for cid in todo:
            group = self.lines[cid][0]
            if group in self.ended or not self._paid(cid):
                continue
            if last[0] != group:  # a group's samples come together: its body is rendered once
                last = (group, self.body(group))
            encoded = json.dumps({"custom_id": cid, "method": "POST", "url": ENDPOINT, "body": last[1]},
                                 ensure_ascii=False).encode() + b"\n"  # fmt: skip
            if current and (len(current) >= self.limits.max_requests or size + len(encoded) > self.limits.max_bytes):
                refused += self._submit(current, number)
                current, size, number = [], 0, number + 1
            current.append((cid, encoded))
            size += len(encoded)
        if current:
            refused += self._submit(current, number)
        return refused

    def _paid(self, cid: str) -> bool:
        group, _ = self.lines[cid]
        if group in self.ended:
            return False
        if self.budget.take():
            return True
        for topic, docno in group:
            self.emit(PairResult(topic, docno, None, BUDGET_SPENT, None, budget_spent=True))
        self.ended.add(group)
        return False

    def _submit(self, chunk: list[tuple[str, bytes]], number: int) -> list[str]:
        ids = [cid for cid, _ in chunk]
        try:
            file_id = self.api.upload(b"".join(e for _, e in chunk), name=f"judge-round{self.round}-{number}.jsonl")
            said = self.api.create(file_id, metadata={"round": str(self.round)})
        except BatchCallFailed as failure:
            self.budget.give_back(len(ids))
            return self.resend(ids, f"batch not started: {failure}")
        batch = BatchUnderWay(said.id, self.round, ids, interval=self.limits.poll_seconds)
        batch.took(said)
        self.sent += len(ids)
        self.open.append(batch)
        self.every.append(batch)
        self.ledger.submitted(batch)
        return []

    def resend(self, ids: Iterable[str], reason: str) -> list[str]:
        """Counts a send of each line that came back unanswered; returns those with sends left, ends the rest."""
        again = []
        for cid in ids:
            self.tries[cid] = self.tries.get(cid, 0) + 1
            group, _ = self.lines[cid]
            if group in self.ended:
                continue
            if self.tries[cid] < self.limits.rounds:
                again.append(cid)
                continue
            self.ended.add(group)
            head, _, detail = reason.partition(": ")  # the class first, as failures are grouped (by what precedes ":")
            failure = f"{head}: sent {self.tries[cid]} times" + (f"; {detail}" if detail else "")
            for topic, docno in group:
                self.emit(PairResult(topic, docno, None, failure, None))
        return again

    def look(self, stop: Stop) -> list[BatchUnderWay]:
        """Waits for the next batch due a look, looks at every one due; those that ended."""
        due = min(b.polled_at + b.interval for b in self.open)
        if _waited(due - time.time(), stop, self.api.abort):
            return []
        ended = []
        for batch in list(self.open):
            if time.time() < batch.polled_at + batch.interval:
                continue
            try:
                changed = batch.took(self.api.retrieve(batch.id))
                batch.look_failures = 0
            except BatchCallFailed as failure:
                changed, batch.look_failures = False, batch.look_failures + 1
                if batch.look_failures >= MAX_LOOK_FAILURES:  # a server that lost it, or is gone: its lines go again
                    batch.status, batch.errors, changed = "failed", f"no answer about the batch: {failure}", True
            batch.polled_at = time.time()
            cap = self.limits.poll_seconds * POLL_CAP
            batch.interval = self.limits.poll_seconds if changed else min(batch.interval * POLL_GROWTH, cap)
            self.ledger.polled(batch)
            if batch.status in TERMINAL:
                ended.append(batch)
        return ended

    def collect(self, batch: BatchUnderWay) -> list[str]:
        """Reads an ended batch's answers back; the lines to send again. A file that cannot be read yet leaves the
        batch under way, looked at again later (`rounds` tries before its lines are sent again)."""
        try:
            answers = {}
            for file_id in (batch.error_file_id, batch.output_file_id):  # an output line wins over an error line
                if file_id:
                    answers.update(read_lines(self.api.content(file_id)))
        except BatchCallFailed as failure:
            batch.download_failures += 1
            if batch.download_failures < self.limits.rounds:
                return []
            answers, batch.errors = {}, str(failure)
        self.open.remove(batch)
        unanswered = NO_LINE.get(batch.status, "no output line") + (f": {batch.errors}" if batch.errors else "")
        again: dict[str, str] = {}
        for cid in batch.custom_ids:
            if cid not in self.lines or self.lines[cid][0] in self.ended:
                continue  # answered before (a restarted run re-reading a batch)
            answer = answers.get(cid)
            if answer is None or answer.resend:
                again[cid] = answer.error if answer is not None else unanswered
                continue
            group, sample = self.lines[cid]
            self.budget.spend(answer.prompt_tokens, answer.completion_tokens)
            self.got.setdefault(group, {})[sample] = answer
            if len(self.got[group]) == self.asking.samples:
                self._answered(group, batch.id, cid)
        self.ledger.collected(batch)
        resent = []
        for reason in dict.fromkeys(again.values()):
            resent += self.resend([cid for cid, why in again.items() if why == reason], reason)
        return resent

    def _answered(self, group: tuple[Pair, ...], batch_id: str, cid: str) -> None:
        """A group's results once every sample of it came back, read as an online answer is."""
        got = self.got.pop(group)
        answers = [got[s] for s in range(self.asking.samples)]
        failed = next((a for a in answers if a.error is not None), None)
        share = len(group)
        answer = {
            "text": answers[-1].text,
            "prompt_tokens": sum(a.prompt_tokens for a in answers) // share,
            "completion_tokens": sum(a.completion_tokens for a in answers) // share,
            "seconds": 0.0,
            "batch": self.asking.batch == "topic",
        }
        if self.asking.samples > 1:
            answer["texts"] = [a.text for a in answers]
        if failed is None:
            for pair in group:
                self.asking.cache.put(self.asking.key(*pair), answer)
        self.ended.add(group)
        error = failed.error if failed else None
        for pair in group:
            result = self.asking.outcome(*pair, answer, cached=False, error=error)
            self.emit(replace(result, batch=batch_id, custom_id=cid))

    def cancel(self) -> None:
        """Cancels every batch under way on the server; their answers are a later run's to read."""
        for batch in self.open:
            try:
                batch.took(self.api.cancel(batch.id))
            except BatchCallFailed:
                continue
            self.ledger.polled(batch)


def judge_in_batches(
    pairs: Iterable[Pair],
    *,
    topics: Mapping[str, TopicText],
    documents: Mapping[str, str],
    template: Template,
    api: BatchApi,
    cache: ReplyCache,
    scale: tuple[int, int] | None = None,
    mapping: Mapping | None = None,
    budget_words: int = 400,
    batch: str = "pair",
    samples: int = 1,
    limits: BatchLimits = BatchLimits(),
    budget: Budget | None = None,
    ledger: Ledger | None = None,
    resumed: Sequence[BatchUnderWay] = (),
    tries: Mapping[str, int] | None = None,
    on_result: Callable[[PairResult], None] | None = None,
    stop: Stop | None = None,
) -> JudgeRun:
    """Judges every distinct pair once through the Batch API, as the module says; the run's figures as the online
    mode's (`judge_pairs`), with `batches` (every batch of the run, resumed ones included, as the server last said)
    and `requests` the lines sent. `resumed`: batches an earlier attempt sent and did not read back (their lines are
    not sent again); `tries`: how often each custom_id was sent and came back unanswered before. `on_result` and
    `stop` as in `judge_pairs`, asked in the calling thread."""
    if samples > 1 and batch != "pair":
        raise ValueError("samples need one pair a call (batch 'pair')")
    asking = Asking(topics, documents, template, None, cache, scale or template.scale, mapping, budget_words, batch,
                    samples, config=api.config)  # fmt: skip
    run = JudgeRun()

    def emit(result: PairResult) -> None:
        run.add(result)
        if on_result is not None:
            on_result(result)

    stop = stop or (lambda: False)
    state = _Round(asking, api, limits, budget or Budget(), ledger or MemoryLedger(), emit, tries=dict(tries or {}))
    todo = []
    for pair in dict.fromkeys(pairs):
        known = asking.unknown(*pair)
        stored = None if known else cache.get(asking.key(*pair))
        if known is not None or stored is not None:
            emit(known or asking.outcome(*pair, stored, cached=True, error=None))
        else:
            todo.append(pair)
    for group in request_groups(todo, batch):
        for sample in range(samples):
            state.lines[custom_id(group, sample)] = (tuple(group), sample)
    state.open, state.every = list(resumed), list(resumed)
    state.round = max((b.round for b in resumed), default=0)
    under_way = {cid for b in resumed for cid in b.custom_ids}
    to_send = [cid for cid in state.lines if cid not in under_way]
    while not stop():
        if to_send:
            to_send = state.send(to_send)
        if not state.open and not to_send:
            break
        if state.open:
            for ended in state.look(stop):
                to_send += state.collect(ended)
    if stop():
        state.cancel()
    run.requests = state.sent
    run.batches = [b.report() for b in state.every]
    return run


def _waited(seconds: float, stop: Stop, abort: threading.Event) -> bool:
    """Waits `seconds`, looking at `stop` every STOP_POLL; whether it turned true."""
    deadline = time.monotonic() + max(0.0, seconds)
    while True:
        if stop():
            return True
        left = deadline - time.monotonic()
        if left <= 0:
            return False
        abort.wait(min(STOP_POLL, left))
