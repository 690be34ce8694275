"""A client of OpenAI-compatible chat-completions servers (`POST {base_url}/chat/completions`), for judging.

Every fault is an answer, never an exception the caller must guess about: `complete` returns a Reply whose `error`
names what went wrong (timeout, refused connection, HTTP status, a body that is not the protocol's JSON, no
choice). Faults worth another try (timeouts, refused connections, 429, 5xx, a garbled or empty answer, as a proxy's
error page is) are retried with exponential backoff, a 429's Retry-After respected; the rest (400, 401, 404...)
are not. Requests per minute are spaced evenly across threads, and a
budget (requests or tokens) stops further calls. The API key is read from an environment variable named in the
configuration and appears in no message, reply or error. Standard library only (urllib): one POST needs nothing
more.
"""

from __future__ import annotations

import json
import os
import threading
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field


@dataclass(frozen=True)
class ServerConfig:
    base_url: str
    model: str
    api_key_env: str | None = None  # the name of the variable holding the key, never the key
    timeout: float = 60.0
    retries: int = 3
    backoff: float = 1.0  # seconds before the first retry, doubling
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


@dataclass
class Budget:
    """Stops calls once `requests` calls or `tokens` tokens are spent (None: no limit). Thread-safe."""

    requests: int | None = None
    tokens: int | None = None
    spent_requests: int = 0
    spent_tokens: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def take(self) -> bool:
        with self._lock:
            if (self.requests is not None and self.spent_requests >= self.requests) or (
                self.tokens is not None and self.spent_tokens >= self.tokens
            ):
                return False
            self.spent_requests += 1
            return True

    def spend_tokens(self, count: int) -> None:
        with self._lock:
            self.spent_tokens += count


class _Pacer:
    """Spaces requests evenly to at most `per_minute` a minute, across threads."""

    def __init__(self, per_minute: float | None):
        self.gap = 60.0 / per_minute if per_minute else 0.0
        self.next_at = 0.0
        self.lock = threading.Lock()

    def wait(self) -> None:
        if not self.gap:
            return
        with self.lock:
            now = time.monotonic()
            at = max(now, self.next_at)
            self.next_at = at + self.gap
        time.sleep(max(0.0, at - now))


RETRIED_STATUSES = {408, 409, 425, 429, 500, 502, 503, 504}


class ChatClient:
    def __init__(self, config: ServerConfig, *, budget: Budget | None = None, sleep=time.sleep):
        self.config, self.budget, self._sleep = config, budget or Budget(), sleep
        self._pacer = _Pacer(config.requests_per_minute)
        self._key = os.environ.get(config.api_key_env, "") if config.api_key_env else ""

    def complete(self, prompt: str) -> Reply:
        """One chat completion of `prompt` as the user's message, retried as the module says."""
        reply, delay, started = Reply(), self.config.backoff, time.monotonic()
        for attempt in range(1, self.config.retries + 2):
            if not self.budget.take():
                reply.error = "budget spent: no more requests"
                break
            self._pacer.wait()
            reply.attempts = attempt
            retry_after, reply = self._once(prompt, reply)
            if reply.error is None or retry_after is None or attempt > self.config.retries:
                break
            self._sleep(max(retry_after, delay))
            delay *= 2
        reply.seconds = time.monotonic() - started
        return reply

    def _once(self, prompt: str, reply: Reply) -> tuple[float | None, Reply]:
        """One request: (seconds to wait before a retry, or None when retrying is pointless; the reply so far)."""
        body = json.dumps({
            "model": self.config.model,
            "messages": [{"role": "user", "content": prompt}],
            "temperature": self.config.temperature,
            "max_tokens": self.config.max_tokens,
        }).encode()  # fmt: skip
        headers = {"Content-Type": "application/json"}
        if self._key:
            headers["Authorization"] = f"Bearer {self._key}"
        request = urllib.request.Request(
            self.config.base_url.rstrip("/") + "/chat/completions", data=body, headers=headers, method="POST"
        )
        try:
            with urllib.request.urlopen(request, timeout=self.config.timeout) as response:
                raw = response.read()
        except urllib.error.HTTPError as error:
            reply.error = f"HTTP {error.code}" + self._detail(error)
            if error.code not in RETRIED_STATUSES:
                return None, reply
            return _retry_after(error.headers.get("Retry-After")), reply
        except (TimeoutError, urllib.error.URLError, ConnectionError, OSError) as error:
            reason = getattr(error, "reason", error)
            reply.error = (
                "timed out" if "timed out" in str(reason) else f"could not reach the server ({type(reason).__name__})"
            )
            return 0.0, reply
        reply = _parsed(raw, reply, self.budget)
        return (0.0 if reply.error else None), reply

    def _detail(self, error: urllib.error.HTTPError) -> str:
        """The server's own words for a refusal it will repeat (400: say, a prompt over the model's context), from
        its JSON error's message: at most 200 characters, never for 401 or 403 (some servers quote part of the key
        there), and with the key itself taken out should a server echo it."""
        if error.code in RETRIED_STATUSES or error.code in (401, 403):
            return ""
        try:
            body = json.loads(error.read(4096) or b"{}")
            message = body.get("error", {}).get("message") if isinstance(body.get("error"), dict) else body.get("error")
        except (ValueError, AttributeError, OSError):
            return ""
        if not isinstance(message, str) or not message.strip():
            return ""
        if self._key:
            message = message.replace(self._key, "[key]")
        return ": " + " ".join(message.split())[:200]


def _retry_after(value: str | None) -> float:
    try:
        return max(0.0, float(value)) if value is not None else 0.0
    except ValueError:
        return 0.0  # an HTTP date: the backoff decides


def _parsed(raw: bytes, reply: Reply, budget: Budget) -> Reply:
    try:
        body = json.loads(raw)
        choices = body["choices"]
        usage = body.get("usage") or {}
    except (ValueError, KeyError, TypeError):
        reply.error = "the server's answer is not chat-completions JSON"
        return reply
    reply.prompt_tokens = int(usage.get("prompt_tokens") or 0)
    reply.completion_tokens = int(usage.get("completion_tokens") or 0)
    budget.spend_tokens(reply.prompt_tokens + reply.completion_tokens)
    if not choices or not isinstance(choices, list):
        reply.error = "the server answered with no choice"
        return reply
    message = choices[0].get("message") if isinstance(choices[0], dict) else None
    text = message.get("content") if isinstance(message, dict) else None
    if not isinstance(text, str) or not text.strip():
        reply.error = "the server answered with an empty message"
        return reply
    reply.text, reply.error = text, None
    return reply
