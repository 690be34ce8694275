"""A client of model servers for judging: a provider adapter (core/adapters.py: the request as data, the reply
parsed; OpenAI-compatible chat completions by default) over the shared outbound transport (config.core.outbound: the
address rules, no redirects, one deadline per call, a cap on what is read, pooled connections).

Every fault is an answer, never an exception the caller must guess about: `complete` returns a Reply whose `error`
names the class of what went wrong (timed out, could not connect, HTTP status, not the protocol's JSON, no choice).
Faults worth another try (timeouts, refused connections, 429, 5xx, a garbled or empty answer, as a proxy's error
page is) are retried with exponential backoff, a 429's Retry-After respected; the rest (400, 401, 404, a refused
address, a redirect) are not. Requests per minute are spaced evenly across threads, and a budget (requests or
tokens) stops further calls. The key is read from a WORKBENCH_SECRET_* variable named in the configuration; no run
of 8 or more of its characters is left in any reply or error (config.core.secrets.masked). An `abort` event ends the
calls under way within half a second and starts no more.
"""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass, field

from config.core import outbound
from config.core.secrets import masked, secret_value
from judging.machines.core.adapters import Adapter, OpenAIChat

# What is kept of a refusal's own words (a reply's text is capped by the adapter, at MAX_REPLY_CHARS).
MAX_DETAIL_CHARS = 120
BUDGET_SPENT = "budget spent: no more requests"
MAX_CONCURRENCY = 64  # a judge's most calls at once (MachineJudge.concurrency's limit)


@dataclass(frozen=True)
class ServerConfig:
    base_url: str
    model: str
    api_key_env: str | None = None  # the WORKBENCH_SECRET_* variable holding the key, never the key
    timeout: float = 60.0
    retries: int = outbound.RETRIES
    backoff: float = outbound.BACKOFF  # seconds before the first retry, doubling (`outbound.retry_wait`)
    requests_per_minute: float | None = None
    temperature: float = 0.0
    max_tokens: int = 512

    def identity(self) -> dict:
        """What a reply depends on (for the cache key): never the key itself."""
        return {"base_url": self.base_url.rstrip("/"), "model": self.model, "temperature": self.temperature,
                "max_tokens": self.max_tokens}  # fmt: skip


@dataclass
class Reply:
    text: str | None = None
    error: str | None = None
    prompt_tokens: int = 0
    completion_tokens: int = 0
    seconds: float = 0.0
    attempts: int = 0
    budget_spent: bool = False  # no call made: the budget was spent before it


@dataclass
class Budget:
    """Stops calls once `requests` calls, `tokens` tokens or `money` (at `prices`, per 1,000 prompt and completion
    tokens) are spent (None: no limit). A call under way when the limit is reached finishes: the limit stops the next
    one. Thread-safe."""

    requests: int | None = None
    tokens: int | None = None
    money: float | None = None
    prices: tuple[float, float] = (0.0, 0.0)
    spent_requests: int = 0
    spent_tokens: int = 0
    spent_money: float = 0.0
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def take(self) -> bool:
        with self._lock:
            if (
                (self.requests is not None and self.spent_requests >= self.requests)
                or (self.tokens is not None and self.spent_tokens >= self.tokens)
                or (self.money is not None and self.spent_money >= self.money)
            ):
                return False
            self.spent_requests += 1
            return True

    def give_back(self, requests: int) -> None:
        """Calls taken and never made (a batch file the server refused): no longer counted."""
        with self._lock:
            self.spent_requests = max(0, self.spent_requests - requests)

    def spend(self, prompt_tokens: int, completion_tokens: int) -> None:
        with self._lock:
            self.spent_tokens += prompt_tokens + completion_tokens
            self.spent_money += (prompt_tokens * self.prices[0] + completion_tokens * self.prices[1]) / 1000


class ChatClient:
    def __init__(
        self,
        config: ServerConfig,
        *,
        budget: Budget | None = None,
        abort: threading.Event | None = None,
        adapter: Adapter | None = None,
    ):
        self.config, self.budget = config, budget or Budget()
        self.adapter = adapter or OpenAIChat()
        self.abort = abort or threading.Event()
        per_minute = config.requests_per_minute
        self._pacer = outbound.Pacer(per_minute / 60 if per_minute else None)
        self._key = secret_value(config.api_key_env)
        # As many connections as a judge may have calls under way (its concurrency is at most 64): a smaller pool
        # made calls wait for a connection (10 of them held 32 concurrent calls to 47 pairs/s at 200 ms).
        self._http = outbound.outbound_client(connections=MAX_CONCURRENCY)

    def close(self) -> None:
        self._http.close()

    def complete(self, prompt: str) -> Reply:
        """One chat completion of `prompt` as the user's message, retried as the module says."""
        reply, started = Reply(), time.monotonic()
        for attempt in range(1, self.config.retries + 2):
            if self.abort.is_set():
                reply.error = "cancelled"
                break
            if not self.budget.take():
                reply.error, reply.budget_spent = BUDGET_SPENT, True
                break
            self._pacer.wait()
            reply.attempts = attempt
            retry_after, reply = self._once(prompt, reply)
            if reply.error is None or retry_after is None or attempt > self.config.retries:
                break
            wait = outbound.retry_wait(backoff=self.config.backoff, attempt=attempt, retry_after=retry_after)
            if self.abort.wait(wait):  # the backoff, cut short by a cancel
                reply.error = "cancelled"
                break
        reply.seconds = time.monotonic() - started
        reply.text = masked(reply.text, self._key)
        reply.error = masked(reply.error, self._key)
        return reply

    def _once(self, prompt: str, reply: Reply) -> tuple[float | None, Reply]:
        """One request: (seconds to wait before a retry, or None when retrying is pointless; the reply so far)."""
        request = self.adapter.request(
            base_url=self.config.base_url, model=self.config.model, prompt=prompt,
            temperature=self.config.temperature, max_tokens=self.config.max_tokens, key=self._key,
        )  # fmt: skip
        answer = outbound.post_json(
            self._http, request.url, body=request.body, headers=request.headers, timeout=self.config.timeout,
            abort=self.abort,
        )  # fmt: skip
        if answer.failure is not None:
            reply.text = None
            reply.error = answer.failure + (self._detail(answer) if answer.status else "")
            if not answer.retry:
                return None, reply
            return (answer.retry_after or 0.0), reply
        parsed = self.adapter.parse(answer.content)
        reply.text, reply.error = parsed.text, parsed.error
        reply.prompt_tokens, reply.completion_tokens = parsed.prompt_tokens, parsed.completion_tokens
        self.budget.spend(parsed.prompt_tokens, parsed.completion_tokens)
        return (0.0 if reply.error else None), reply

    def _detail(self, answer: outbound.Answer) -> str:
        """The server's own words for a refusal it will repeat (400: say, a prompt over the model's context), from
        its JSON error's message: a short excerpt, never for 401, 403 or 404 (servers quote keys and paths there),
        masked by the caller like everything else."""
        if answer.status is None or answer.status in outbound.RETRIED_STATUSES or answer.status not in (400, 413, 422):
            return ""
        try:
            body = json.loads(answer.content or b"{}")
            error = body.get("error")
            message = error.get("message") if isinstance(error, dict) else error
        except (ValueError, AttributeError):
            return ""
        if not isinstance(message, str) or not message.strip():
            return ""
        return ": " + " ".join(message.split())[:MAX_DETAIL_CHARS]
