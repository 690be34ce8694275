"""The outbound rules (config.core.outbound, config.core.secrets) against real local listeners: only WORKBENCH_SECRET_*
variables can be named, a redirect carries nothing anywhere, loopback and the other inside ranges are refused in every
spelling unless the operator lists them (checked when connecting, so a name that changes its answer cannot slip
past), a call ends at its deadline however a server trickles, a reply is read only up to its cap, and no stretch of
8 characters of a key survives in what is kept."""

from __future__ import annotations

import contextlib
import ipaddress
import socket
import threading

import pytest

from config.core import outbound
from config.core.secrets import masked, secret_name_problem, secret_value
from judging.machines.core.client import ChatClient, ServerConfig
from tests.chat_server import chat_server, outbound_allowed

QRELS = {("1", "d1"): 2}
KEY = "sk-proj-4f9a1c2e7b3d5f6a8c0e2b4d6f8a0c2e4b6d8f0a"


@pytest.mark.parametrize("name", ["SECRET_KEY", "DATABASE_URL", "REDIS_URL", "HOME", "WORKBENCH_SECRET_", "sk-live-1"])
def test_only_a_workbench_secret_variable_can_be_named(name, monkeypatch):
    monkeypatch.setenv(name, "value") if name.isidentifier() else None
    assert "WORKBENCH_SECRET_" in secret_name_problem(name)
    with pytest.raises(ValueError):
        secret_value(name)


def test_a_secret_variable_that_is_unset_is_refused_and_a_set_one_is_read(monkeypatch):
    monkeypatch.delenv("WORKBENCH_SECRET_OPENAI", raising=False)
    assert "is not set" in secret_name_problem("WORKBENCH_SECRET_OPENAI")
    monkeypatch.setenv("WORKBENCH_SECRET_OPENAI", KEY)
    assert secret_name_problem("WORKBENCH_SECRET_OPENAI") is None
    assert secret_value("WORKBENCH_SECRET_OPENAI") == KEY


@pytest.mark.parametrize(
    "text",
    [KEY, f"No route for token {KEY[:33]}", f"key ...{KEY[10:18]}... rest", f"{KEY[-8:]}", f"a{KEY[5:30]}b{KEY[:9]}"],
)
def test_no_run_of_eight_characters_of_a_key_is_left_in_a_masked_text(text):
    hidden = masked(text, KEY)
    assert not any(KEY[i : i + 8] in hidden for i in range(len(KEY) - 7))
    assert "[key]" in hidden


def test_masking_leaves_text_without_a_key_run_alone():
    assert masked("HTTP 404: no such model sk-proj", KEY) == "HTTP 404: no such model sk-proj"


@pytest.mark.parametrize(
    "address",
    [
        "127.0.0.1", "127.8.9.10", "::1", "10.1.2.3", "172.16.0.5", "192.168.1.1", "169.254.169.254", "0.0.0.0", "::",
        "224.0.0.1", "ff02::1", "240.0.0.1", "fe80::1", "fc00::1", "::ffff:127.0.0.1", "::ffff:10.0.0.1",
        "2002:7f00:1::1", "100.64.0.1",
    ],
)  # fmt: skip
def test_inside_addresses_are_refused_unless_listed(address):
    parsed = ipaddress.ip_address(address)
    assert outbound.address_problem("h", parsed, 80, []) is not None
    listed = outbound.allowances(f"{address}/128" if ":" in address else f"{address}/32")
    assert outbound.address_problem("h", parsed, 80, listed) is None or ":" in address


def test_a_global_address_needs_no_listing():
    assert outbound.address_problem("api.example", ipaddress.ip_address("8.8.8.8"), 443, []) is None


def test_allow_entries_name_a_host_a_host_and_port_or_a_network():
    allowed = outbound.allowances("ollama:11434, 10.0.0.0/8, [::1]:8000, vllm")
    loopback, inside = ipaddress.ip_address("127.0.0.1"), ipaddress.ip_address("10.9.9.9")
    assert outbound.address_problem("ollama", loopback, 11434, allowed) is None
    assert outbound.address_problem("ollama", loopback, 6379, allowed) is not None  # another port of the same host
    assert outbound.address_problem("anything", inside, 5432, allowed) is None
    assert outbound.address_problem("vllm", loopback, 1, allowed) is None
    assert outbound.address_problem("::1", ipaddress.ip_address("::1"), 8000, allowed) is None
    with pytest.raises(ValueError, match="WORKBENCH_OUTBOUND_ALLOW"):
        outbound.allowances("host:port")


def _client(url: str, **options) -> ChatClient:
    return ChatClient(ServerConfig(base_url=url, model="m", backoff=0.01, **options))


@pytest.mark.parametrize("host", ["127.0.0.1", "2130706433", "0x7f000001", "[::ffff:127.0.0.1]", "localhost"])
def test_a_loopback_server_in_any_spelling_gets_no_request_until_the_operator_lists_it(host):
    with chat_server(QRELS, allowed=False) as server:
        port = server.server_address[1]
        reply = _client(f"http://{host}:{port}/v1", retries=2).complete("Query: topic 1 doc d1")
        assert reply.text is None and reply.error.startswith("refused") and reply.attempts == 1
        assert server.requests == 0
        with outbound_allowed(f"127.0.0.1:{port}"):  # every spelling is the one address the operator listed
            assert _client(f"http://{host}:{port}/v1").complete("Query: topic 1 doc d1").text
            assert server.requests == 1


def test_a_name_that_resolves_inside_only_when_connecting_is_refused_then(monkeypatch):
    """DNS rebinding: the save-time look-up saw nothing usable; the connect-time one answers loopback."""
    real = socket.getaddrinfo
    with chat_server(QRELS, allowed=False) as server:
        port = server.server_address[1]
        assert outbound.url_problem(f"http://rebind.test:{port}/v1") is None  # does not resolve now: let through

        def rebound(host, *args, **kwargs):
            return real("127.0.0.1" if host == "rebind.test" else host, *args, **kwargs)

        monkeypatch.setattr(outbound.socket, "getaddrinfo", rebound)
        reply = _client(f"http://rebind.test:{port}/v1").complete("Query: topic 1 doc d1")
        assert reply.error.startswith("refused") and server.requests == 0


def test_a_redirect_is_a_failure_and_the_key_goes_nowhere_else(monkeypatch):
    monkeypatch.setenv("WORKBENCH_SECRET_JUDGE", KEY)
    with chat_server(QRELS) as elsewhere, chat_server(QRELS) as server:
        server.redirect_to = f"{elsewhere.base_url}/chat/completions"
        server.faults = ["302"]
        reply = _client(server.base_url, api_key_env="WORKBENCH_SECRET_JUDGE", retries=3).complete("x")
        assert reply.error == "HTTP 302: a redirect, not followed" and reply.attempts == 1
        assert elsewhere.requests == 0 and server.authorizations == [f"Bearer {KEY}"]


def test_a_trickling_server_cannot_stretch_a_call_past_its_deadline():
    with chat_server(QRELS) as server:
        server.faults, server.trickle_gap = ["trickle"], 0.25  # ~60 bytes: 15 s if every byte were waited for
        reply = _client(server.base_url, timeout=1.0, retries=0).complete("Query: topic 1 doc d1")
    assert reply.text is None and reply.error.startswith("timed out")
    assert server.bytes_sent < 20  # the client hung up at its deadline, long before the whole reply


def test_a_50_mb_reply_is_read_only_up_to_the_cap_and_not_kept():
    with chat_server(QRELS) as server:
        server.faults = ["huge"]
        reply = _client(server.base_url, retries=0).complete("Query: topic 1 doc d1")
    assert reply.text is None and "larger than 1,000,000 bytes" in reply.error


def test_an_abort_ends_a_call_that_is_waiting_on_a_slow_server():
    with chat_server(QRELS) as server:
        server.delay = 30.0
        client = _client(server.base_url, timeout=60.0, retries=3)
        threading.Timer(0.3, client.abort.set).start()
        reply = client.complete("Query: topic 1 doc d1")
    assert reply.error == "cancelled" and reply.attempts == 1


def test_a_keys_quoted_start_or_an_echo_is_masked_in_the_error_and_the_reply(monkeypatch):
    monkeypatch.setenv("WORKBENCH_SECRET_JUDGE", KEY)
    with chat_server(QRELS) as server:
        server.faults = ["404key", "echo"]
        client = _client(server.base_url, api_key_env="WORKBENCH_SECRET_JUDGE", retries=0)
        refused, echoed = client.complete("x"), client.complete("Query: topic 1 doc d1")
    assert refused.error == "HTTP 404"  # a 404's body is never quoted
    assert KEY[:8] not in echoed.text and "[key]" in echoed.text


def test_a_server_that_is_not_http_and_a_closed_port_are_told_only_by_class():
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    port = listener.getsockname()[1]

    def banner() -> None:  # as Redis or PostgreSQL would answer an HTTP request
        connection, _ = listener.accept()
        connection.recv(1024)
        connection.sendall(b"-ERR unknown command 'POST', with args beginning with: secret-internal-detail\r\n")
        connection.settimeout(1)
        with contextlib.suppress(OSError):
            while connection.recv(1024):  # until the client hangs up (closing first could reset its read)
                pass
        connection.close()

    threading.Thread(target=banner, daemon=True).start()
    closed = socket.socket()
    closed.bind(("127.0.0.1", 0))
    closed_port = closed.getsockname()[1]
    closed.close()
    with outbound_allowed(f"127.0.0.1:{port}", f"127.0.0.1:{closed_port}"):
        not_http = _client(f"http://127.0.0.1:{port}", retries=0).complete("x")
        nobody = _client(f"http://127.0.0.1:{closed_port}", retries=0).complete("x")
    listener.close()
    assert not_http.error.startswith("not HTTP") and "secret-internal" not in not_http.error
    assert nobody.error == "could not connect"


def test_every_outside_call_backs_off_by_one_rule_doubling_and_a_longer_retry_after_wins():
    from config.core.outbound import retry_wait

    assert [retry_wait(backoff=0.5, attempt=n, retry_after=None) for n in (1, 2, 3)] == [0.5, 1.0, 2.0]
    assert retry_wait(backoff=0.5, attempt=1, retry_after=7.0) == 7.0
    assert retry_wait(backoff=4.0, attempt=2, retry_after=1.0) == 8.0
