"""Fetching a query set from an engine, pure: each query paged through to the depth asked, `concurrency` queries at
a time, at most `rate` requests a second across them, through the outbound transport (its address rules, deadline
per request, size cap, no redirect).

- A page that answers a status worth asking again (`outbound.RETRIED_STATUSES`: 429, 5xx, 408, 409, 425) is retried
  as every outside call is (`outbound.retry_wait`: up to `retries` times, backoff doubling from `backoff` seconds, a
  longer Retry-After winning); any other failure (a timeout, a refused address, another 4xx, an answer that is not
  the protocol's) is not: a query set's fetch would wait on every timed-out query again. A query whose page fails
  for good is a **hole**: it has no ranking at all, never an empty or partial one, and its reason is kept.
- A circuit breaker: after `breaker` queries in a row failed, the rest are not sent (each a hole saying why).
- Paging stops at the depth, at a short page, or at the engine's total; a document id repeated across pages (the
  index changed between them) keeps its first place.
- Every request is kept for the recipe: what was sent (never its headers), the status, a SHA-256 of the answer and
  the seconds it took.
"""

from __future__ import annotations

import hashlib
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

from config.core import outbound
from judging.search_fetch.core.engines import ENGINES, AnswerError, Endpoint, Hit
from judging.search_fetch.core.templates import TemplateError


@dataclass(frozen=True)
class Policy:
    depth: int = 100
    page_size: int = 100
    timeout: float = 10.0  # one request's whole deadline: connect, send and read
    retries: int = outbound.RETRIES
    backoff: float = outbound.BACKOFF  # `outbound.retry_wait`: doubling, a longer Retry-After winning
    concurrency: int = 4
    rate: float | None = None  # requests a second, across the queries
    breaker: int = 5  # queries in a row that fail before the rest are not sent


@dataclass
class QueryResult:
    topic: str
    hits: list[Hit] = field(default_factory=list)
    requests: list[dict] = field(default_factory=list)
    failure: str | None = None
    seconds: float = 0.0


class Breaker:
    """Opens after `limit` failed queries in a row; a query that succeeds closes the count again."""

    def __init__(self, limit: int):
        self.limit, self.in_a_row, self.lock = limit, 0, threading.Lock()

    @property
    def open(self) -> bool:
        return bool(self.limit) and self.in_a_row >= self.limit

    def record(self, failed: bool) -> None:
        with self.lock:
            self.in_a_row = self.in_a_row + 1 if failed else 0


@dataclass
class Fetcher:
    client: object  # an httpx.Client from outbound.outbound_client
    endpoint: Endpoint
    policy: Policy
    headers: dict = field(default_factory=dict)
    abort: threading.Event = field(default_factory=threading.Event)
    requests_made: int = 0

    def __post_init__(self):
        self.adapter = ENGINES[self.endpoint.engine]
        self.pacer = outbound.Pacer(self.policy.rate)
        self.breaker = Breaker(self.policy.breaker)
        self.lock = threading.Lock()

    def query(self, topic: str, values: Mapping[str, str]) -> QueryResult:
        """One query's ranking to the depth, or its hole."""
        result, started = QueryResult(topic), time.monotonic()
        if self.breaker.open:
            result.failure = f"not sent: the circuit is open after {self.breaker.in_a_row} failed queries in a row"
            return result
        seen: set[str] = set()
        start, size = 0, min(self.policy.page_size, self.endpoint.max_page or self.policy.page_size)
        pages = getattr(self.adapter, "pages", None)
        single_page = pages is not None and not pages(self.endpoint)
        try:
            while len(result.hits) < self.policy.depth:
                want = min(size, self.policy.depth - len(result.hits))
                page = self._page(result, values, start, want)
                if page is None:
                    break
                fresh = [hit for hit in page.hits if hit.docid not in seen]
                seen.update(hit.docid for hit in fresh)
                result.hits.extend(fresh[: self.policy.depth - len(result.hits)])
                start += len(page.hits)
                if single_page or len(page.hits) < want or (page.total is not None and start >= page.total):
                    break
        except TemplateError as error:
            result.failure = f"template: {error}"
        if result.failure:
            result.hits = []  # a hole, never a partial ranking
        self.breaker.record(result.failure is not None)
        result.seconds = time.monotonic() - started
        return result

    def _page(self, result: QueryResult, values, start: int, size: int):
        request = self.adapter.request(self.endpoint, values, start, size)
        for attempt in range(self.policy.retries + 1):
            self.pacer.wait()
            began = time.monotonic()
            answer = outbound.call(
                self.client, request.method, request.url, json=request.json, params=request.params,
                headers={**request.headers, **self.headers}, timeout=self.policy.timeout, abort=self.abort,
            )  # fmt: skip
            with self.lock:
                self.requests_made += 1
            result.requests.append({**request.shown(), "status": answer.status, "attempt": attempt + 1,
                                    "sha256": hashlib.sha256(answer.content).hexdigest() if answer.content else None,
                                    "seconds": round(time.monotonic() - began, 4)})  # fmt: skip
            if answer.failure is None:
                try:
                    return self.adapter.parse(self.endpoint, answer.content)
                except AnswerError as error:
                    result.failure = f"unreadable answer: {error}"
                    return None
            if answer.status not in outbound.RETRIED_STATUSES or attempt == self.policy.retries or self.abort.is_set():
                result.failure = answer.failure
                return None
            wait = outbound.retry_wait(backoff=self.policy.backoff, attempt=attempt + 1, retry_after=answer.retry_after)
            if self.abort.wait(wait):
                result.failure = "cancelled"
                return None
        return None

    def engine_version(self) -> str | None:
        """The version the engine says it runs, where its protocol has a way to ask (one request, no retry); None
        where it has none or does not answer."""
        ask = getattr(self.adapter, "version_request", None)
        if ask is None:
            return None
        request = ask(self.endpoint)
        answer = outbound.call(self.client, request.method, request.url, params=request.params, headers=self.headers,
                               timeout=self.policy.timeout, abort=self.abort)  # fmt: skip
        return self.adapter.version(answer.content) if answer.failure is None else None

    def fetch(
        self, queries: Sequence[tuple[str, Mapping[str, str]]], on_result: Callable[[QueryResult], None] | None = None
    ) -> list[QueryResult]:
        """Every query's result in the order given; `on_result` is called in this thread as each one ends."""
        results: dict[str, QueryResult] = {}
        with ThreadPoolExecutor(max_workers=max(1, self.policy.concurrency)) as pool:
            futures = [(topic, pool.submit(self.query, topic, values)) for topic, values in queries]
            for topic, future in futures:
                results[topic] = future.result()
                if on_result is not None:
                    on_result(results[topic])
        return [results[topic] for topic, _ in queries]


def run_lines(results: Sequence[QueryResult], tag: str) -> list[str]:
    """A TREC run whose order, as trec_eval reads it (score descending), is the engine's: the score written is
    the rank counted down (the engine's own scores tie often and are kept in the recipe instead). A hole has no
    line."""
    lines = []
    for result in results:
        depth = len(result.hits)
        for rank, hit in enumerate(result.hits, start=1):
            lines.append(f"{result.topic} Q0 {hit.docid} {rank} {depth - rank + 1} {tag}")
    return lines
