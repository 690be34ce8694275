"""Outbound requests: the one HTTP transport every integration (machine judges, search endpoints) uses, with the
operator's rules on where a request may go, an overall deadline per call, a cap on what is read, and failures named
by class only.

The rules:
- No redirect is followed: a 3xx is a failure naming its status (a redirect would carry the Authorization header,
  or the request itself, somewhere the configuration never named).
- The host is resolved here and the connection made to the vetted address itself, so a name that resolves
  differently a moment later (DNS rebinding) cannot slip past. Loopback, private, link-local (169.254/16 included),
  multicast, unspecified, reserved and other non-global addresses are refused, in every spelling that resolves to
  one (`http://2130706433/`, `[::ffff:127.0.0.1]`), unless the operator lists the host, host:port or CIDR in
  WORKBENCH_OUTBOUND_ALLOW (comma-separated), e.g. `127.0.0.1:11434` for a local Ollama.
- A call's deadline covers connect, send and every read together: a server trickling a byte at a time cannot stretch
  it. An `abort` event stops a call within ABORT_POLL seconds, in whichever read it is waiting.
- At most `max_bytes` of a reply are read; environment proxies are ignored (they would connect for us unvetted).
- A failure is a class (refused address, could not connect, timed out, not HTTP, HTTP status N, unreadable reply,
  too large), never a body: the caller decides what, if anything, of an error's text may be kept.

Resolving and connecting use httpcore's network-backend hook (httpx 0.28 builds its pool without one, so the
transport below builds its own pool with the same settings).
"""

from __future__ import annotations

import contextlib
import contextvars
import ipaddress
import os
import socket
import ssl
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass

import httpcore
import httpx

ALLOW_VARIABLE = "WORKBENCH_OUTBOUND_ALLOW"
MAX_REPLY_BYTES = 1_000_000
ERROR_BODY_BYTES = 4096
ABORT_POLL = 0.5  # seconds between looks at an abort while a read waits


class OutboundRefused(Exception):
    """The address is not one the operator allows: nothing was sent."""


class CallAborted(Exception):
    """The caller's abort event was set while the call was under way."""


@dataclass(frozen=True)
class Allowance:
    host: str | None = None  # a host name or literal address, lower case, as the URL names it
    network: ipaddress.IPv4Network | ipaddress.IPv6Network | None = None
    port: int | None = None

    def admits(self, host: str, address: ipaddress.IPv4Address | ipaddress.IPv6Address, port: int) -> bool:
        if self.port is not None and self.port != port:
            return False
        if self.network is not None:
            return address in self.network
        return self.host == host.lower().strip("[]") or self.host == str(address)


def allowances(text: str | None = None) -> list[Allowance]:
    """WORKBENCH_OUTBOUND_ALLOW's entries: `host`, `host:port`, `[v6]:port`, `CIDR` or an address. ValueError names
    an entry that is none of them."""
    text = os.environ.get(ALLOW_VARIABLE, "") if text is None else text
    out = []
    for raw in (part.strip() for part in text.split(",")):
        if not raw:
            continue
        host, port = raw, None
        if raw.startswith("["):
            host, _, rest = raw[1:].partition("]")
            port = int(rest[1:]) if rest.startswith(":") and rest[1:].isdigit() else None
        elif raw.count(":") == 1:
            host, _, number = raw.partition(":")
            if not number.isdigit():
                raise ValueError(f"{ALLOW_VARIABLE}: {raw!r} is not host, host:port or a CIDR")
            port = int(number)
        if "/" in host:
            try:
                out.append(Allowance(network=ipaddress.ip_network(host, strict=False), port=port))
            except ValueError as error:
                raise ValueError(f"{ALLOW_VARIABLE}: {raw!r} is not a CIDR") from error
        else:
            out.append(Allowance(host=host.lower(), port=port))
    return out


def _effective(address):
    """The IPv4 address an IPv6 one stands for (mapped, 6to4, Teredo), else itself."""
    if isinstance(address, ipaddress.IPv6Address):
        for embedded in (address.ipv4_mapped, address.sixtofour, address.teredo and address.teredo[1]):
            if embedded:
                return embedded
    return address


def address_kind(address) -> str | None:
    """What makes `address` off limits by default ('loopback', 'private', ...), or None for a global address."""
    address = _effective(address)
    for kind in ("loopback", "link_local", "multicast", "unspecified", "reserved", "private"):
        if getattr(address, f"is_{kind}"):
            return kind.replace("_", "-")
    if not address.is_global:
        return "non-global"
    return None


def address_problem(host: str, address, port: int, allowed: list[Allowance] | None = None) -> str | None:
    """Why a connection to `address` (resolved from `host`) on `port` is refused, or None."""
    kind = address_kind(address)
    if kind is None:
        return None
    allowed = allowances() if allowed is None else allowed
    if any(entry.admits(host, address, port) or entry.admits(host, _effective(address), port) for entry in allowed):
        return None
    return f"refused: the host resolves to a {kind} address; an operator may allow it in {ALLOW_VARIABLE}"


def resolved(host: str, port: int) -> list:
    """The addresses `host` resolves to, in the resolver's order (literal forms such as 2130706433 included)."""
    try:
        infos = socket.getaddrinfo(host.strip("[]"), port, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError) as error:
        raise httpcore.ConnectError("could not resolve the host") from error
    out = []
    for info in infos:
        address = ipaddress.ip_address(info[4][0].split("%")[0])
        if address not in out:
            out.append(address)
    return out


def url_problem(url: str) -> str | None:
    """Why `url` can never be called under the rules as they stand (for a configuration's save), or None. A host
    that does not resolve now is let through: it is checked again at every connect."""
    parsed = httpx.URL(url)
    port = parsed.port or (443 if parsed.scheme == "https" else 80)
    try:
        addresses = resolved(parsed.host, port)
        allowed = allowances()
    except (httpcore.ConnectError, ValueError):
        return None
    problems = [address_problem(parsed.host, address, port, allowed) for address in addresses]
    return problems[0] if problems and all(problems) else None


_limits: contextvars.ContextVar[tuple[float, threading.Event | None] | None] = contextvars.ContextVar(
    "outbound_limits", default=None
)


def _slice(timeout: float | None) -> tuple[float, float | None, threading.Event | None]:
    """(this wait's seconds, the overall deadline, the abort event) for one socket operation."""
    limits = _limits.get()
    deadline, abort = limits if limits else (None, None)
    now = time.monotonic()
    bound = timeout if timeout is not None else float("inf")
    if deadline is not None:
        bound = min(bound, deadline - now)
    if bound <= 0:
        raise httpcore.ReadTimeout("the call's deadline passed")
    if abort is not None:
        bound = min(bound, ABORT_POLL)
    return (None if bound == float("inf") else bound), deadline, abort


class _BoundedStream(httpcore.NetworkStream):
    """A connection whose every wait ends at the call's deadline, or within ABORT_POLL of its abort."""

    def __init__(self, stream: httpcore.NetworkStream):
        self._stream = stream

    def _waiting(self, operation, timeout, *args):
        started = time.monotonic()
        while True:
            seconds, _, abort = _slice(None if timeout is None else timeout - (time.monotonic() - started))
            try:
                return operation(*args, timeout=seconds)
            except (httpcore.ReadTimeout, httpcore.WriteTimeout, httpcore.ConnectTimeout):
                if abort is not None and abort.is_set():
                    raise CallAborted() from None
                _slice(None if timeout is None else timeout - (time.monotonic() - started))  # raises when spent

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        return self._waiting(self._stream.read, timeout, max_bytes)

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        return self._waiting(self._stream.write, timeout, buffer)

    def close(self) -> None:
        self._stream.close()

    def start_tls(self, ssl_context, server_hostname=None, timeout=None) -> httpcore.NetworkStream:
        seconds, _, _ = _slice(timeout)
        return _BoundedStream(self._stream.start_tls(ssl_context, server_hostname, timeout=seconds))

    def get_extra_info(self, info: str):
        return self._stream.get_extra_info(info)


class _GuardedBackend(httpcore.NetworkBackend):
    """Resolves, vets every address against the rules, and connects to a vetted address (never resolving again)."""

    def __init__(self):
        self._inner = httpcore.SyncBackend()

    def connect_tcp(self, host, port, timeout=None, local_address=None, socket_options=None):
        host = host.decode() if isinstance(host, bytes) else host
        allowed = allowances()
        problem = None
        for address in resolved(host, port):
            problem = address_problem(host, address, port, allowed)
            if problem is None:
                seconds, _, _ = _slice(timeout)
                stream = self._inner.connect_tcp(str(address), port, seconds, local_address, socket_options)
                return _BoundedStream(stream)
        raise OutboundRefused(problem or "refused: the host resolves to no address")

    def connect_unix_socket(self, path, timeout=None, socket_options=None):
        raise OutboundRefused("refused: unix sockets are not an outbound destination")

    def sleep(self, seconds: float) -> None:
        time.sleep(seconds)


class GuardedTransport(httpx.HTTPTransport):
    """httpx's transport over a pool that connects through `_GuardedBackend`."""

    def __init__(self, **options):
        super().__init__(**options)
        pool = self._pool
        self._pool = httpcore.ConnectionPool(
            ssl_context=pool._ssl_context,
            max_connections=pool._max_connections,
            max_keepalive_connections=pool._max_keepalive_connections,
            keepalive_expiry=pool._keepalive_expiry,
            http1=pool._http1,
            http2=pool._http2,
            retries=0,
            network_backend=_GuardedBackend(),
        )


def outbound_client(*, connections: int = 10, ca_bundle: str | None = None) -> httpx.Client:
    """An httpx client under the rules: no redirects, no environment proxies, vetted connects, pooled connections
    (up to `connections` at once, for a run's concurrent calls). TLS is always verified, against the system's
    certificates or the CA bundle file named."""
    limits = httpx.Limits(max_connections=connections, max_keepalive_connections=connections)
    verify = ssl.create_default_context(cafile=ca_bundle) if ca_bundle else True
    return httpx.Client(
        transport=GuardedTransport(limits=limits, verify=verify), follow_redirects=False, trust_env=False,
        timeout=60.0,
    )  # fmt: skip


@dataclass
class Answer:
    """One call's outcome: the status and body read (capped), or a failure class. `retry` says whether another try
    could answer differently; `retry_after` is a 429/503's Retry-After in seconds, where it gave one."""

    status: int | None = None
    content: bytes = b""
    failure: str | None = None
    retry: bool = False
    retry_after: float | None = None


@contextlib.contextmanager
def _bounded(deadline: float, abort: threading.Event | None) -> Iterator[None]:
    token = _limits.set((deadline, abort))
    try:
        yield
    finally:
        _limits.reset(token)


def post_json(
    client: httpx.Client,
    url: str,
    *,
    body: dict,
    headers: dict | None = None,
    timeout: float,
    max_bytes: int = MAX_REPLY_BYTES,
    abort: threading.Event | None = None,
) -> Answer:
    """POSTs `body` as JSON and reads the reply within `timeout` seconds in all (see `call`)."""
    return call(client, "POST", url, json=body, headers=headers, timeout=timeout, max_bytes=max_bytes, abort=abort)


def call(
    client: httpx.Client,
    method: str,
    url: str,
    *,
    json: dict | list | None = None,
    params: list[tuple[str, str]] | None = None,
    headers: dict | None = None,
    timeout: float,
    max_bytes: int = MAX_REPLY_BYTES,
    abort: threading.Event | None = None,
    files: dict | None = None,
    data: dict | None = None,
) -> Answer:
    """One request (a JSON body, or a multipart form of `data` fields and `files` as httpx takes them, and query
    parameters where given), its reply read within `timeout` seconds in all. A 2xx's body is read up to
    `max_bytes`; an error's up to ERROR_BODY_BYTES (for the caller to take a short message from, or not)."""
    answer = Answer()
    body = {"json": json} if files is None else {"files": files, "data": data}
    try:
        with (
            _bounded(time.monotonic() + timeout, abort),
            client.stream(method, url, params=params, headers=headers or {}, timeout=timeout, **body) as response,
        ):
            answer.status = response.status_code
            if response.is_redirect or 300 <= response.status_code < 400:
                answer.failure = f"HTTP {response.status_code}: a redirect, not followed"
                return answer
            limit = max_bytes if response.is_success else ERROR_BODY_BYTES
            chunks, size = [], 0
            for chunk in response.iter_bytes():  # decoded, so a gzip bomb is capped too
                chunks.append(chunk)
                size += len(chunk)
                if size > limit:
                    break
            answer.content = b"".join(chunks)[:limit]
            if response.is_success and size > limit:
                answer.failure = f"the reply is larger than {limit:,} bytes (not read further)"
                return answer
            if not response.is_success:
                answer.failure = f"HTTP {response.status_code}"
                answer.retry = response.status_code in RETRIED_STATUSES
                answer.retry_after = _seconds(response.headers.get("Retry-After"))
    except OutboundRefused as refused:
        answer.failure = str(refused)
    except CallAborted:
        answer.failure = "cancelled"
    except httpx.TimeoutException:
        answer.failure, answer.retry = f"timed out (no whole reply within {timeout:g} s)", True
    except httpx.ConnectError:
        answer.failure, answer.retry = "could not connect", True
    except (httpx.RemoteProtocolError, httpx.LocalProtocolError):
        answer.failure, answer.retry = "not HTTP: the server did not answer as an HTTP server", False
    except (httpx.TransportError, httpx.DecodingError):
        answer.failure, answer.retry = "unreadable reply: the connection broke or the body did not decode", True
    return answer


class Pacer:
    """At most `per_second` requests started a second (None: no limit), spaced evenly across the threads that share
    it, as a model server's or a search engine's rate limit asks."""

    def __init__(self, per_second: float | None):
        self.gap = 1.0 / per_second if per_second else 0.0
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


RETRIED_STATUSES = frozenset({408, 409, 425, 429, 500, 502, 503, 504})
# The one retry policy of every outside call: up to RETRIES more tries, BACKOFF seconds before the first, doubling,
# a longer Retry-After winning (`retry_wait`). A caller may set its own counts; the rule is this one.
RETRIES, BACKOFF = 3, 1.0


def retry_wait(*, backoff: float, attempt: int, retry_after: float | None) -> float:
    """Seconds to wait before retry number `attempt` (1: the first): `backoff` doubled each time, or the server's
    Retry-After when it asks for longer."""
    return max(backoff * 2 ** (attempt - 1), retry_after or 0.0)


def _seconds(value: str | None) -> float | None:
    try:
        return max(0.0, float(value)) if value is not None else None
    except ValueError:
        return None  # an HTTP date: the caller's backoff decides
