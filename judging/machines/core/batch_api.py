"""A client of OpenAI's Batch API, as OpenAI, Azure OpenAI and vLLM's OpenAI-compatible server speak it: upload a
JSONL file of requests (`POST /files`, purpose "batch"), start a batch on it (`POST /batches`), look at it
(`GET /batches/ID`), cancel it (`POST /batches/ID/cancel`) and read its output and error files
(`GET /files/ID/content`). Over the shared outbound transport (config.core.outbound: the address rules, no
redirects, a deadline per call, a cap on what is read); the key from a WORKBENCH_SECRET_* variable, masked out of
every error kept.

A call that fails for a reason worth another try (timeouts, refused connections, 429, 5xx) is tried again with the
one retry policy (`outbound.retry_wait`); one that still fails, or fails for good, raises BatchCallFailed naming
its class, never the server's body.
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass

from config.core import outbound
from config.core.secrets import masked, secret_value
from judging.machines.core.client import ServerConfig

ENDPOINT = "/v1/chat/completions"
COMPLETION_WINDOW = "24h"
TERMINAL = frozenset({"completed", "failed", "expired", "cancelled"})
# What a file's download may be at most: the output of a 50,000-request file of short answers is a few tens of MB.
MAX_OUTPUT_BYTES = 1_000_000_000
UPLOAD_SECONDS = 600.0  # a 200 MB upload on a slow link: the call's deadline, not the judge's per-request timeout


class BatchCallFailed(Exception):
    """A Batch API call failed (after its retries): the class of what went wrong, masked."""


@dataclass(frozen=True)
class ServerBatch:
    """What the server says of a batch."""

    id: str
    status: str
    output_file_id: str | None = None
    error_file_id: str | None = None
    total: int = 0
    completed: int = 0
    failed: int = 0
    errors: str = ""  # a failed batch's own reasons (a file it could not validate), short

    @classmethod
    def read(cls, body: dict) -> ServerBatch:
        counts = body.get("request_counts") or {}
        errors = body.get("errors")
        listed = (errors.get("data") if isinstance(errors, dict) else None) or []
        said = "; ".join(str(e.get("message") or e.get("code") or "")[:120] for e in listed[:3] if isinstance(e, dict))
        return cls(
            id=str(body["id"]),
            status=str(body.get("status") or "validating"),
            output_file_id=body.get("output_file_id") or None,
            error_file_id=body.get("error_file_id") or None,
            total=int(counts.get("total") or 0),
            completed=int(counts.get("completed") or 0),
            failed=int(counts.get("failed") or 0),
            errors=said,
        )


class BatchApi:
    def __init__(self, config: ServerConfig, *, abort: threading.Event | None = None):
        self.config = config
        self.abort = abort or threading.Event()
        self._key = secret_value(config.api_key_env)
        self._http = outbound.outbound_client(connections=4)
        self._base = config.base_url.rstrip("/")

    def close(self) -> None:
        self._http.close()

    def upload(self, content: bytes, *, name: str) -> str:
        """Uploads a JSONL file of requests; its file id."""
        files = {"file": (name, content, "application/jsonl")}
        body = self._json("POST", "/files", files=files, data={"purpose": "batch"}, timeout=UPLOAD_SECONDS)
        return str(body["id"])

    def create(self, file_id: str, *, metadata: dict | None = None) -> ServerBatch:
        request = {"input_file_id": file_id, "endpoint": ENDPOINT, "completion_window": COMPLETION_WINDOW}
        if metadata:
            request["metadata"] = metadata
        return ServerBatch.read(self._json("POST", "/batches", json=request))

    def retrieve(self, batch_id: str) -> ServerBatch:
        return ServerBatch.read(self._json("GET", f"/batches/{batch_id}"))

    def cancel(self, batch_id: str) -> ServerBatch:
        return ServerBatch.read(self._json("POST", f"/batches/{batch_id}/cancel"))

    def content(self, file_id: str) -> bytes:
        return self._call("GET", f"/files/{file_id}/content", max_bytes=MAX_OUTPUT_BYTES).content

    def _json(self, method: str, path: str, **options) -> dict:
        answer = self._call(method, path, **options)
        try:
            body = json.loads(answer.content)
            if not isinstance(body, dict) or "id" not in body:
                raise ValueError
        except ValueError:
            what = path.split("/")[1]
            raise BatchCallFailed(f"{method} {what}: unreadable reply: not the Batch API's JSON") from None
        return body

    def _call(self, method: str, path: str, *, timeout: float | None = None, **options) -> outbound.Answer:
        headers = {"Authorization": f"Bearer {self._key}"} if self._key else {}
        for attempt in range(1, self.config.retries + 2):
            if self.abort.is_set():
                raise BatchCallFailed("cancelled")
            answer = outbound.call(
                self._http, method, self._base + path, headers=headers, abort=self.abort,
                timeout=timeout or self.config.timeout, **options,
            )  # fmt: skip
            if answer.failure is None:
                return answer
            if not answer.retry or attempt > self.config.retries:
                break
            wait = outbound.retry_wait(backoff=self.config.backoff, attempt=attempt, retry_after=answer.retry_after)
            if self.abort.wait(wait):
                raise BatchCallFailed("cancelled")
        what = path.split("/")[1]  # "files" or "batches": never an id the server might echo a key into
        raise BatchCallFailed(masked(f"{method} {what}: {answer.failure}", self._key))
