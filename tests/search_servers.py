"""Small search engines for tests, on a local port, speaking the Elasticsearch/OpenSearch `_search` protocol and
Solr's `/select` as documented (request and answer shapes, `hits.total`, `numFound`, a largest page, 400 for a
body that is not JSON), over a few documents scored by how many of the query's words they hold, so scores tie and
ties come back in the engine's own order (insertion), not by id. Faults for the coming requests, in order: "429"
(with Retry-After), "500", "hang" (answers after `hang_seconds`), "garbage" (not JSON), "400"."""

from __future__ import annotations

import json
import re
import threading
import time
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qsl, urlparse

from tests.chat_server import running

WORD = re.compile(r"\w+")
# Ids out of alphabetical order on purpose: tied scores come back as inserted, which no docno tie-break reproduces.
DOCUMENTS = {
    "zeta": "red apples and green pears",
    "alpha": "red apples",
    "mike": "green pears",
    "bravo": "red wine",
    "yankee": "apples",
    "charlie": "pears and apples and red grapes",
}


class SearchServer(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 256

    def __init__(self, documents=None, *, max_page: int = 10_000):
        super().__init__(("127.0.0.1", 0), _Handler)
        self.documents = dict(documents or DOCUMENTS)
        self.max_page = max_page
        self.faults: list[str] = []
        self.retry_after = "0"
        self.hang_seconds = 3.0
        self.delay = 0.0
        self.requests: list[dict] = []
        self.lock = threading.Lock()
        self.echo_credential = False  # a careless engine: its version string quotes the Authorization it was sent

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"

    def ranked(self, query: str) -> list[tuple[str, float]]:
        words = {w.lower() for w in WORD.findall(query)}
        scored = [(docid, float(len(words & {w.lower() for w in WORD.findall(text)})))
                  for docid, text in self.documents.items()]  # fmt: skip
        matching = [pair for pair in scored if pair[1] > 0]
        return sorted(matching, key=lambda pair: -pair[1])  # stable: ties stay in insertion order


def _query_text(node) -> str:
    """The query string a body carries, wherever the template put it (multi_match, query_string, match...)."""
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "query" and isinstance(value, str):
                return value
            found = _query_text(value)
            if found:
                return found
    if isinstance(node, list):
        for item in node:
            found = _query_text(item)
            if found:
                return found
    return ""


class _Handler(BaseHTTPRequestHandler):
    server: SearchServer

    def log_message(self, *args) -> None:
        pass

    def _fault(self) -> str | None:
        with self.server.lock:
            return self.server.faults.pop(0) if self.server.faults else None

    def _send(self, payload, status: int = 200, headers=None) -> None:
        data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)

    def _faulted(self) -> bool:
        fault = self._fault()
        if self.server.delay:
            time.sleep(self.server.delay)
        if fault is None:
            return False
        if fault == "hang":
            time.sleep(self.server.hang_seconds)
            return False
        if fault == "429":
            self._send({"error": "too many requests"}, 429, {"Retry-After": self.server.retry_after})
        elif fault == "garbage":
            self._send(b"<html>bad gateway</html>")
        else:
            self._send({"error": {"type": "fault"}}, int(fault))
        return True

    def do_POST(self) -> None:  # Elasticsearch / OpenSearch
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        path = urlparse(self.path).path
        with self.server.lock:
            self.server.requests.append({"method": "POST", "path": path, "body": raw.decode("utf-8", "replace"),
                                         "authorization": self.headers.get("Authorization")})  # fmt: skip
        if self._faulted():
            return
        if not path.endswith("/_search"):
            self._send({"error": "no handler"}, 404)
            return
        try:
            body = json.loads(raw)
        except ValueError:
            self._send({"error": {"type": "parsing_exception", "reason": "Unknown key"}, "status": 400}, 400)
            return
        start, size = int(body.get("from", 0)), int(body.get("size", 10))
        if size > self.server.max_page:
            self._send({"error": {"type": "illegal_argument_exception",
                                  "reason": "Page is too large"}, "status": 400}, 400)  # fmt: skip
            return
        ranked = self.server.ranked(_query_text(body.get("query", {})))
        hits = [{"_index": "i", "_id": d, "_score": s} for d, s in ranked[start : start + size]]
        self._send({"took": 1, "hits": {"total": {"value": len(ranked), "relation": "eq"}, "hits": hits}})

    def do_GET(self) -> None:  # Solr
        parsed = urlparse(self.path)
        params = parse_qsl(parsed.query, keep_blank_values=True)
        with self.server.lock:
            self.server.requests.append({"method": "GET", "path": parsed.path, "params": params,
                                         "authorization": self.headers.get("Authorization")})  # fmt: skip
        if self._faulted():
            return
        if parsed.path == "/":
            number = "8.15.0" + (f" {self.headers.get('Authorization')}" if self.server.echo_credential else "")
            self._send({"name": "test", "version": {"number": number, "distribution": "elasticsearch"}})
            return
        if parsed.path.endswith("/admin/info/system"):
            self._send({"lucene": {"solr-spec-version": "9.6.1"}})
            return
        if not parsed.path.endswith("/select"):
            self._send({"error": "no handler"}, 404)
            return
        found = dict(params)
        start, rows = int(found.get("start", 0)), int(found.get("rows", 10))
        ranked = self.server.ranked(found.get("q", ""))
        docs = [{"id": d, "score": s} for d, s in ranked[start : start + min(rows, self.server.max_page)]]
        self._send({"responseHeader": {"status": 0}, "response": {"numFound": len(ranked), "start": start,
                                                                   "docs": docs}})  # fmt: skip


@contextmanager
def search_server(documents=None, **options):
    """A running SearchServer whose address the operator allows (it is on loopback)."""
    with running(SearchServer(documents, **options)) as server:
        yield server
