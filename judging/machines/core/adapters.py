"""Provider adapters, pure: what to send a model server for a prompt, as plain data, and what its answer means. The
transport (config.core.outbound: address rules, deadlines, size caps) is apart and shared, so an adapter is tested,
and a recorded answer replayed, without a network; a new protocol is one adapter, never a branch in the client.

After Quepid's `llm_judge_adapters`: one adapter per protocol; here, the OpenAI-compatible chat-completions
protocol that OpenAI, Azure OpenAI, vLLM, Ollama, llama.cpp's server and LM Studio all speak.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Protocol

# What is kept of a reply's text: a grade needs a few lines, not a megabyte.
MAX_REPLY_CHARS = 20_000


@dataclass(frozen=True)
class Request:
    url: str
    body: dict
    headers: dict


@dataclass(frozen=True)
class Parsed:
    """An answer read: the model's text, or why there is none; the tokens the server says it used."""

    text: str | None
    error: str | None
    prompt_tokens: int = 0
    completion_tokens: int = 0


class Adapter(Protocol):
    def request(self, *, base_url: str, model: str, prompt: str, temperature: float, max_tokens: int,
                key: str | None) -> Request: ...  # fmt: skip

    def parse(self, raw: bytes) -> Parsed: ...

    def read(self, body) -> Parsed: ...


class OpenAIChat:
    """`POST {base_url}/chat/completions` with the prompt as the user's message; the first choice's content."""

    def request(self, *, base_url, model, prompt, temperature, max_tokens, key) -> Request:
        body = {
            "model": model,
            "messages": [{"role": "user", "content": prompt}],
            "temperature": temperature,
            "max_tokens": max_tokens,
        }
        headers = {"Authorization": f"Bearer {key}"} if key else {}
        return Request(base_url.rstrip("/") + "/chat/completions", body, headers)

    def parse(self, raw: bytes) -> Parsed:
        try:
            body = json.loads(raw)
        except ValueError:
            return Parsed(None, "unreadable reply: not chat-completions JSON")
        return self.read(body)

    def read(self, body) -> Parsed:
        """An answer already decoded from JSON (a batch output line's body) read as `parse` reads one."""
        try:
            choices = body["choices"]
            usage = body.get("usage") or {}
        except (ValueError, KeyError, TypeError):
            return Parsed(None, "unreadable reply: not chat-completions JSON")
        try:
            tokens = int(usage.get("prompt_tokens") or 0), int(usage.get("completion_tokens") or 0)
        except (TypeError, ValueError, AttributeError):
            tokens = 0, 0
        if not choices or not isinstance(choices, list):
            return Parsed(None, "the server answered with no choice", *tokens)
        message = choices[0].get("message") if isinstance(choices[0], dict) else None
        text = message.get("content") if isinstance(message, dict) else None
        if not isinstance(text, str) or not text.strip():
            return Parsed(None, "the server answered with an empty message", *tokens)
        return Parsed(text[:MAX_REPLY_CHARS], None, *tokens)
