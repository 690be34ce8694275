"""Showing a document to an assessor: its markup reduced to escaped text, with the topic's query terms marked."""

from __future__ import annotations

import re

from django.utils.html import escape, strip_tags
from django.utils.safestring import SafeString, mark_safe

_STOPWORDS = """a an and are as at be by for from how in is it of on or that the to was what when where which who
why with
about does do can into not no their there these this those"""
STOPWORDS = frozenset(_STOPWORDS.split())
WORD = re.compile(r"\w+", re.UNICODE)


def query_terms(*texts: str) -> list[str]:
    """The distinct words of the topic's query (no stopwords, no one-letter words), longest first so that a longer
    term wins where two overlap."""
    words = {w.lower() for text in texts for w in WORD.findall(text or "")}
    return sorted((w for w in words if len(w) > 1 and w not in STOPWORDS), key=lambda w: (-len(w), w))


def highlighted(text: str, terms: list[str]) -> SafeString:
    """The document's text as safe HTML: any markup in it is dropped and the rest escaped, so nothing in a document
    is ever interpreted by the browser; whole-word matches of `terms` (case-insensitive) are wrapped in <mark>.

    Matching runs on the raw text and each piece is escaped on its own, so a term can never match inside an
    escaped entity (`amp` in `&amp;`)."""
    plain = strip_tags(text or "")
    if not terms:
        return mark_safe(escape(plain))  # escaped just now
    pattern = re.compile(r"\b(" + "|".join(re.escape(t) for t in terms) + r")\b", re.IGNORECASE)
    pieces, last = [], 0
    for match in pattern.finditer(plain):
        pieces.append(escape(plain[last : match.start()]))
        pieces.append(f"<mark>{escape(match.group(0))}</mark>")
        last = match.end()
    pieces.append(escape(plain[last:]))
    return mark_safe("".join(pieces))  # every piece escaped above


_ALIGNED = re.compile(r"^(?: {2,}|\t)|\S {2,}\S|\t|^\s*\|.*\|\s*$|^[-=+| ]{4,}$", re.MULTILINE)


def document_blocks(text: str, terms: list[str]) -> list[tuple[str, SafeString]]:
    """The document as blocks separated by blank lines, each ("pre" | "text", highlighted HTML): a block whose
    lines are indented, hold tabs, aligned columns or table rules is preformatted (shown in a monospace block that
    keeps its whitespace, as code, docstrings and plain-text tables need); the rest is running text."""
    plain = strip_tags(text or "").replace("\r\n", "\n")
    blocks = [block for block in re.split(r"\n[ \t]*\n", plain) if block.strip()]
    return [("pre" if _ALIGNED.search(block) else "text", highlighted(block, terms)) for block in blocks]
