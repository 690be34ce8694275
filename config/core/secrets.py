"""Secrets an integration may use: only environment variables named WORKBENCH_SECRET_*, read at call time, never
shown; and the masking of any part of one in text that is stored or shown.

The prefix is the rule because the server's own variables (SECRET_KEY, DATABASE_URL, REDIS_URL) hold what an
admin must never be able to send to a URL of their choosing: an integration's configuration names a variable, and
only this namespace is one an operator filled in on purpose for integrations. No Django here: the command-line
judge uses it too.
"""

from __future__ import annotations

import base64
import binascii
import os
import re

PREFIX = "WORKBENCH_SECRET_"
_NAME = re.compile(r"[A-Z0-9_]{1,100}")
# A stretch of this many characters of a key, anywhere in a text, is taken for the key: a server that quotes the
# first 33 characters of a key in its 404 must not hand them to whoever reads the failure.
MASK_RUN = 8
MASKED = "[key]"


def secret_name_problem(name: str, *, environ=None) -> str | None:
    """Why `name` cannot name an integration's secret (None when it can): it must be WORKBENCH_SECRET_<NAME>, in
    capitals, and be set on the server (a call without its key would fail, or worse, go out silently keyless)."""
    environ = os.environ if environ is None else environ
    if not name.startswith(PREFIX) or not _NAME.fullmatch(name) or name == PREFIX:
        return (
            f"name an environment variable starting with {PREFIX} (e.g. {PREFIX}OPENAI), never a key and never "
            "another of the server's variables"
        )
    if not environ.get(name):
        return f"{name} is not set on the server; an operator sets it (see docs/deployment.md) before it can be used"
    return None


def secret_value(name: str | None) -> str:
    """The value of an integration's secret variable; '' for none. Refuses any name outside the namespace, whatever
    was stored before the rule existed."""
    if not name:
        return ""
    if not name.startswith(PREFIX) or name == PREFIX:
        raise ValueError(f"{name!r} is not a {PREFIX}* variable")
    return os.environ.get(name, "")


def masked(text: str | None, secret: str) -> str | None:
    """`text` with every run of MASK_RUN or more characters of `secret` replaced by [key] (the whole key, a prefix a
    server quoted, or any stretch of it)."""
    if not text or not secret or len(secret) < MASK_RUN:
        return text if not secret or not text else text.replace(secret, MASKED)
    pieces = {secret[i : i + MASK_RUN] for i in range(len(secret) - MASK_RUN + 1)}
    hidden = bytearray(len(text))
    for start in range(len(text) - MASK_RUN + 1):
        if text[start : start + MASK_RUN] in pieces:
            hidden[start : start + MASK_RUN] = b"\x01" * MASK_RUN
    if not any(hidden):
        return text
    out, index = [], 0
    while index < len(text):
        if hidden[index]:
            while index < len(text) and hidden[index]:
                index += 1
            out.append(MASKED)
        else:
            out.append(text[index])
            index += 1
    return "".join(out)


def header_secrets(headers: dict[str, str]) -> list[str]:
    """Every form of the secrets an outbound request's headers carry, as a server could echo them back: each value
    whole, the credential after its scheme (`Basic …`, `Bearer …`), and a Basic credential decoded (`user:password`,
    and the password alone). What `masked_everywhere` hides from what is stored."""
    found = []
    for value in headers.values():
        found.append(value)
        scheme, _, credential = value.partition(" ")
        if credential:
            found.append(credential)
        if scheme.lower() == "basic" and credential:
            try:
                decoded = base64.b64decode(credential, validate=True).decode("utf-8")
            except (binascii.Error, UnicodeDecodeError):
                continue
            found.append(decoded)
            found.append(decoded.partition(":")[2])
    return sorted({f for f in found if f}, key=len, reverse=True)


def masked_everywhere(value, secrets: list[str]):
    """`value` (a string, or dicts and lists of them, as JSON holds) with every secret of `secrets` masked in every
    string and key (`masked`): what a fetch stores of an engine's answers never holds its credential."""
    if not secrets:
        return value
    if isinstance(value, str):
        for secret in secrets:
            value = masked(value, secret)
        return value
    if isinstance(value, dict):
        return {masked_everywhere(k, secrets): masked_everywhere(v, secrets) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [masked_everywhere(v, secrets) for v in value]
    return value
