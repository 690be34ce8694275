"""A small server of OpenAI's Batch API for tests, on a local port, answering as tests/chat_server.py does: files
(`POST /v1/files` multipart, `GET /v1/files/ID/content`), batches (create, retrieve, cancel) moving through
validating -> in_progress -> finalizing -> completed one look at a time, and, as each batch is planned, failed,
expired (half answered, the rest `batch_expired` in the error file), partial (every other line left out), or held
in progress until released; single lines may be made to fail (`line_faults`: 500 and 400 in the error file, an
answer with no choice in the output). It refuses a file over `max_lines` lines, as OpenAI refuses one over 50,000
requests. `/v1/chat/completions` answers online, from the same model of the qrels."""

from __future__ import annotations

import itertools
import json
import threading
import time
from collections import Counter
from contextlib import contextmanager
from email.parser import BytesParser
from email.policy import HTTP

from tests.chat_server import ChatServer, _Handler, running

STEPS = ("validating", "in_progress", "finalizing")


class BatchServer(ChatServer):
    def __init__(self, qrels, **options):
        super().__init__(qrels, **options)
        self.RequestHandlerClass = _BatchHandler
        self.files: dict[str, bytes] = {}
        self.batches: dict[str, dict] = {}
        self.plans: list[str] = []  # one per batch created, in order: "fail", "expire", "partial", "hold"; else done
        self.looks_per_step = 1  # retrieves a batch spends in each of validating, in_progress, finalizing
        self.held = threading.Event()  # while set, a "hold" batch stays in progress
        self.line_faults: dict[str, str] = {}  # custom_id -> "500", "400" or "empty", the first time it is run
        self.max_lines = 50_000
        self.sent = Counter()  # custom_id -> how many batches it was sent in
        self.answered = Counter()  # custom_id -> how many times an output line answered it
        self.looks: dict[str, list[float]] = {}  # batch id -> the times it was retrieved
        self.cancels: list[str] = []
        self.counter = itertools.count(1)
        self.batch_lock = threading.Lock()  # apart from the chat lock, which answering a line takes

    def hold_next(self) -> None:
        """The next batch created stays in progress until `held` is cleared."""
        self.plans.append("hold")
        self.held.set()

    def new_id(self, prefix: str) -> str:
        return f"{prefix}_{next(self.counter)}"


class _BatchHandler(_Handler):
    server: BatchServer

    def do_POST(self) -> None:
        path = self.path.split("?")[0]
        if path.endswith("/chat/completions"):
            return super().do_POST()
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        with self.server.batch_lock:
            self.server.authorizations.append(self.headers.get("Authorization"))
            if path == "/v1/files":
                return self._upload(body)
            if path == "/v1/batches":
                return self._create(json.loads(body))
            if path.startswith("/v1/batches/") and path.endswith("/cancel"):
                return self._cancel(path.split("/")[3])
        return self._error(404, "no such route")

    def do_GET(self) -> None:
        path = self.path.split("?")[0]
        with self.server.batch_lock:
            self.server.authorizations.append(self.headers.get("Authorization"))
            if path.startswith("/v1/batches/"):
                return self._retrieve(path.split("/")[3])
            if path.startswith("/v1/files/") and path.endswith("/content"):
                content = self.server.files.get(path.split("/")[3])
                if content is None:
                    return self._error(404, "no such file")
                return self._send_raw(content)
        return self._error(404, "no such route")

    def _upload(self, body: bytes) -> None:
        message = BytesParser(policy=HTTP).parsebytes(
            f"Content-Type: {self.headers['Content-Type']}\r\n\r\n".encode() + body
        )
        parts = {part.get_param("name", header="content-disposition"): part for part in message.iter_parts()}
        if "file" not in parts or parts.get("purpose") is None or parts["purpose"].get_content() != "batch":
            return self._error(400, "a file and purpose=batch are required")
        content = parts["file"].get_payload(decode=True)
        if len(content.splitlines()) > self.server.max_lines:
            return self._error(400, f"The batch input file has more than {self.server.max_lines} requests.")
        file_id = self.server.new_id("file")
        self.server.files[file_id] = content
        self._send(json.dumps({"id": file_id, "object": "file", "bytes": len(content), "purpose": "batch"}).encode())

    def _create(self, request: dict) -> None:
        server = self.server
        content = server.files.get(request.get("input_file_id"))
        if content is None or request.get("endpoint") != "/v1/chat/completions":
            return self._error(400, "unknown input file or endpoint")
        lines = [json.loads(line) for line in content.splitlines()]
        for line in lines:
            server.sent[line["custom_id"]] += 1
        batch_id = server.new_id("batch")
        server.batches[batch_id] = {
            "id": batch_id, "object": "batch", "endpoint": request["endpoint"], "errors": None,
            "input_file_id": request["input_file_id"], "completion_window": request.get("completion_window"),
            "status": "validating", "output_file_id": None, "error_file_id": None, "created_at": int(time.time()),
            "request_counts": {"total": len(lines), "completed": 0, "failed": 0}, "metadata": request.get("metadata"),
            "_lines": lines, "_plan": server.plans.pop(0) if server.plans else "done", "_looks": 0,
        }  # fmt: skip
        self._send_batch(server.batches[batch_id])

    def _retrieve(self, batch_id: str) -> None:
        batch = self.server.batches.get(batch_id)
        if batch is None:
            return self._error(404, "no such batch")
        self.server.looks.setdefault(batch_id, []).append(time.monotonic())
        if batch["status"] == "cancelling":
            self._end(batch, "cancelled", answered=batch["_lines"][: len(batch["_lines"]) // 2])
        elif batch["status"] not in ("completed", "failed", "expired", "cancelled"):
            batch["_looks"] += 1
            step = batch["_looks"] // self.server.looks_per_step
            if batch["_plan"] == "hold" and step >= 1 and self.server.held.is_set():
                batch["status"] = "in_progress"
            elif step < len(STEPS):
                batch["status"] = STEPS[step]
            else:
                self._finish(batch)
        self._send_batch(batch)

    def _finish(self, batch: dict) -> None:
        lines, plan = batch["_lines"], batch["_plan"]
        if plan == "fail":
            batch["errors"] = {"object": "list", "data": [{"code": "invalid_file", "message": "Invalid JSONL."}]}
            self._end(batch, "failed", answered=[])
        elif plan == "expire":
            half = len(lines) // 2
            self._end(batch, "expired", answered=lines[:half], expired=lines[half:])
        elif plan == "partial":
            self._end(batch, "completed", answered=lines[::2])
        else:
            self._end(batch, "completed", answered=lines)

    def _end(self, batch: dict, status: str, *, answered: list[dict], expired: list[dict] = ()) -> None:
        server, output, errors = self.server, [], []
        for line in answered:
            cid, fault = line["custom_id"], server.line_faults.pop(line["custom_id"], None)
            if fault in ("500", "400"):
                body = {"error": {"message": "The server had an error" if fault == "500" else "Bad request: the "
                                  "prompt is too long", "type": "server_error"}}  # fmt: skip
                errors.append({"id": f"req_{cid}", "custom_id": cid,
                               "response": {"status_code": int(fault), "body": body}, "error": None})  # fmt: skip
                continue
            body = server.completion(line["body"]) if fault != "empty" else {"choices": []}
            server.answered[cid] += 1
            output.append({"id": f"req_{cid}", "custom_id": cid, "response": {"status_code": 200, "body": body},
                           "error": None})  # fmt: skip
        for line in expired:
            errors.append({"id": f"req_{line['custom_id']}", "custom_id": line["custom_id"], "response": None,
                           "error": {"code": "batch_expired", "message": "This request could not be executed "
                                     "before the completion window expired."}})  # fmt: skip
        for rows, key in ((output, "output_file_id"), (errors, "error_file_id")):
            if rows:
                file_id = server.new_id("file")
                server.files[file_id] = "".join(json.dumps(row) + "\n" for row in rows).encode()
                batch[key] = file_id
        batch["status"] = status
        batch["request_counts"].update(completed=len(output), failed=len(errors))

    def _cancel(self, batch_id: str) -> None:
        batch = self.server.batches.get(batch_id)
        if batch is None:
            return self._error(404, "no such batch")
        self.server.cancels.append(batch_id)
        if batch["status"] not in ("completed", "failed", "expired", "cancelled"):
            batch["status"] = "cancelling"
        self._send_batch(batch)

    def _send_batch(self, batch: dict) -> None:
        self._send(json.dumps({k: v for k, v in batch.items() if not k.startswith("_")}).encode())

    def _send_raw(self, data: bytes) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "application/octet-stream")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _error(self, status: int, message: str) -> None:
        self._send(json.dumps({"error": {"message": message, "type": "invalid_request_error"}}).encode(), status)


@contextmanager
def batch_server(qrels, **options):
    """A running BatchServer whose address the operator allows (and nothing else)."""
    with running(BatchServer(qrels, **options)) as server:
        yield server
