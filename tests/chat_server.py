"""A small OpenAI-compatible chat-completions server for tests, on a local port: it answers from a seeded model of
the qrels (each prompt's topic and document looked up, a grade flipped with probability `noise`), and can be made
slow, answer 429 with Retry-After, 500, 400 (a prompt over the context) or 401 (quoting the key, as OpenAI does),
a body that is not JSON, or no choice, for its first N requests; made gullible, it obeys an instruction injected
into a passage."""

from __future__ import annotations

import json
import os
import random
import re
import threading
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from config.core.outbound import ALLOW_VARIABLE

TOPIC = re.compile(r"Query:\s*topic (\w+)")
DOCUMENT = re.compile(r"\bdoc (\w+)\b")
NUGGET_QUERY = re.compile(r"Search Query: (.*)")
NUGGET_ANSWER = re.compile(r"\nAnswer: (.*)\nNugget List: ", re.S)
NUGGET_LIST = re.compile(r"Nugget List: (\[.*\])\nLabels:", re.S)
SUPPORT_SENTENCE = re.compile(r"\nSentence: (.*)\nPassage: ")
SUPPORT_PASSAGE = re.compile(r"\nPassage: (.*)\nSupport:", re.S)
PASSAGE = re.compile(r"<<id: (\S+)>>\n(.*?)(?=\n\n<<id: |\Z)", re.S)


class ChatServer(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 256  # socketserver's 5 drops simultaneous connects, which then wait a second to retry

    def __init__(self, qrels: dict[tuple[str, str], int], *, noise: float = 0.0, seed: int = 0, scale_top: int = 3):
        super().__init__(("127.0.0.1", 0), _Handler)
        self.qrels, self.noise, self.random, self.scale_top = qrels, noise, random.Random(seed), scale_top
        self.delay = 0.0
        self.faults: list[str] = []  # one fault per coming request, in order: "429", "500", "garbage", "empty"
        self.retry_after = "0"
        self.redirect_to = ""  # where a "302" fault points
        self.trickle_gap = 0.3  # seconds between the bytes of a "trickle" fault's reply
        self.bytes_sent = 0  # of "huge" and "trickle" replies, as far as the client took them
        self.gullible = False  # rates any passage carrying an injected instruction the scale's top
        self.nuggets: dict[str, list] = {}  # {query: the nuggets a creation prompt for it is answered with}
        self.requests = 0
        self.prompts: list[str] = []
        self.authorizations: list[str | None] = []
        self.active = self.most_active = 0
        self.lock = threading.Lock()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/v1"

    def grade_for(self, prompt: str) -> int:
        if self.gullible and "Ignore the instructions above" in prompt:
            return self.scale_top
        topic, document = TOPIC.search(prompt), DOCUMENT.search(prompt.split("Query:", 1)[-1])
        return self._noisy(self.qrels.get((topic.group(1), document.group(1)), 0) if topic and document else 0)

    def batch_answer(self, prompt: str) -> str:
        """A batch prompt's answer: a JSON rating of every passage listed, by its id."""
        topic = TOPIC.search(prompt)
        rows = []
        for passage_id, text in PASSAGE.findall(prompt.split("Passages:", 1)[1]):
            document = DOCUMENT.search(text)
            grade = self.qrels.get((topic.group(1), document.group(1)), 0) if topic and document else 0
            rows.append({"id": passage_id, "score": self._noisy(grade)})
        return json.dumps(rows)

    def nuggets_answer(self, prompt: str) -> str:
        """A nugget creation prompt's answer: the nuggets set for its query in `nuggets`, else one per query."""
        query = NUGGET_QUERY.search(prompt).group(1).strip()
        listed = self.nuggets.get(query, [{"text": f"a fact about {query}", "importance": "vital"}])
        return "Here are the nuggets:\n" + json.dumps(listed)

    def labels_answer(self, prompt: str) -> str:
        """An assignment prompt's answer: support when every word of the nugget is in the answer, partial when
        some are, not_support when none is (as a Python list, as nuggetizer's models often write it)."""
        answer = set(re.findall(r"\w+", NUGGET_ANSWER.search(prompt).group(1).lower()))
        labels = []
        for nugget in json.loads(NUGGET_LIST.search(prompt).group(1)):
            words = set(re.findall(r"\w+", nugget.lower()))
            found = len(words & answer)
            labels.append("support" if found == len(words) else "partial_support" if found else "not_support")
        return repr(labels)

    def support_answer(self, prompt: str) -> str:
        """A support prompt's answer: Full when every word of the sentence is in the passage, Partial when some are."""
        sentence = set(re.findall(r"\w+", SUPPORT_SENTENCE.search(prompt).group(1).lower()))
        passage = set(re.findall(r"\w+", SUPPORT_PASSAGE.search(prompt).group(1).lower()))
        found = len(sentence & passage)
        return "Full." if found == len(sentence) else "Partially." if found else "None."

    def completion(self, body: dict) -> dict:
        """A chat completion's answer to a request's body, as the prompt asks."""
        prompt = body["messages"][0]["content"]
        if prompt.rstrip().endswith("Nuggets:"):
            content = self.nuggets_answer(prompt)
        elif prompt.rstrip().endswith("Labels:"):
            content = self.labels_answer(prompt)
        elif prompt.rstrip().endswith("Support:"):
            content = self.support_answer(prompt)
        elif "Passages:" in prompt:
            content = self.batch_answer(prompt)
        else:
            content = f"##final score: {self.grade_for(prompt)}"
        return {
            "choices": [{"message": {"role": "assistant", "content": content}}],
            "usage": {"prompt_tokens": len(prompt.split()), "completion_tokens": 4},
        }

    def _noisy(self, grade: int) -> int:
        with self.lock:
            if self.random.random() < self.noise:
                grade = self.random.choice([g for g in range(self.scale_top + 1) if g != grade])
        return grade


class _Handler(BaseHTTPRequestHandler):
    server: ChatServer

    def log_message(self, *args) -> None:  # quiet
        pass

    def do_POST(self) -> None:
        server = self.server
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        with server.lock:
            server.requests += 1
            server.active += 1
            server.most_active = max(server.most_active, server.active)
            fault = server.faults.pop(0) if server.faults else None
            server.prompts.append(body["messages"][0]["content"])
            server.authorizations.append(self.headers.get("Authorization"))
        try:
            if server.delay:
                threading.Event().wait(server.delay)
            if fault in ("429", "500"):
                self.send_response(int(fault))
                if fault == "429":
                    self.send_header("Retry-After", server.retry_after)
                self.end_headers()
                return
            if fault in ("400", "401"):  # as OpenAI words them: an over-long prompt; a key it quotes in part
                words = {"400": "This model's maximum context length is 8192 tokens; your messages had 9000 tokens",
                         "401": f"Incorrect API key provided: {self.headers.get('Authorization', '')[7:]}"}  # fmt: skip
                self._send(json.dumps({"error": {"message": words[fault]}}).encode(), status=int(fault))
                return
            if fault == "302":
                self.send_response(302)
                self.send_header("Location", server.redirect_to)
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            if fault == "404key":  # a proxy that quotes the start of the key it was given
                quoted = f"No route for token {self.headers.get('Authorization', '')[7:40]}"
                self._send(json.dumps({"error": {"message": quoted}}).encode(), status=404)
                return
            if fault == "echo":  # a model asked to repeat its instructions, and the key with them
                said = f"##final score: 1 (my key was {self.headers.get('Authorization', '')[7:]})"
                self._send(json.dumps({"choices": [{"message": {"content": said}}]}).encode())
                return
            if fault in ("trickle", "huge"):
                self._stream(fault)
                return
            if fault == "garbage":
                self._send(b"<html>bad gateway</html>")
                return
            if fault == "empty":
                self._send(json.dumps({"choices": [], "usage": {"prompt_tokens": 5, "completion_tokens": 0}}).encode())
                return
            self._send(json.dumps(server.completion(body)).encode())
        finally:
            with server.lock:
                server.active -= 1

    def _stream(self, fault: str) -> None:
        """A reply the client must cut short: a valid answer one byte at a time, or 50 MB."""
        server = self.server
        content = json.dumps({"choices": [{"message": {"content": "##final score: 1"}}]}).encode()
        size = len(content) if fault == "trickle" else 50 * 1024 * 1024
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(size))
        self.end_headers()
        try:
            if fault == "trickle":
                for byte in content:
                    self.wfile.write(bytes([byte]))
                    self.wfile.flush()
                    server.bytes_sent += 1
                    threading.Event().wait(server.trickle_gap)
            else:
                chunk = b" " * 65536
                for _ in range(size // len(chunk)):
                    self.wfile.write(chunk)
                    server.bytes_sent += len(chunk)
        except OSError:  # the client hung up, as it should
            return

    def _send(self, data: bytes, status: int = 200) -> None:
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


@contextmanager
def outbound_allowed(*entries: str):
    """WORKBENCH_OUTBOUND_ALLOW with `entries` added while the block runs, as an operator allows a local server."""
    previous = os.environ.get(ALLOW_VARIABLE)
    os.environ[ALLOW_VARIABLE] = ",".join(filter(None, [previous, *entries]))
    try:
        yield
    finally:
        if previous is None:
            os.environ.pop(ALLOW_VARIABLE, None)
        else:
            os.environ[ALLOW_VARIABLE] = previous


@contextmanager
def running(server: ThreadingHTTPServer, *, allowed: bool = True):
    """`server` serving from a thread of its own while the block runs; unless `allowed=False`, its address is one
    the operator allows (it is on loopback), and no other."""
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        with outbound_allowed(f"127.0.0.1:{server.server_address[1]}" if allowed else ""):
            yield server
    finally:
        server.shutdown()
        server.server_close()


@contextmanager
def chat_server(qrels, *, allowed: bool = True, **options):
    """A running ChatServer; unless `allowed=False`, its address is one the operator allows (it is on loopback)."""
    with running(ChatServer(qrels, **options), allowed=allowed) as server:
        yield server
