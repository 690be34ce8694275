"""Guessing a file's format from its first bytes, so admins need not say which format they upload."""

from __future__ import annotations

from pathlib import Path


def sniff(path: str | Path, *, markup: str, markup_format: str) -> str:
    """'jsonl' if the file starts with '{', `markup_format` if with `markup` (e.g. '<top'), else 'tsv'."""
    with open(path, "rb") as handle:
        head = handle.read(4096).lstrip(b"\xef\xbb\xbf").lstrip()
    if head.startswith(b"{"):
        return "jsonl"
    if head[: len(markup)].lower() == markup.encode().lower():
        return markup_format
    return "tsv"
