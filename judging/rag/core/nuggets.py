"""Machine nuggets, pure: the prompts that ask a model to propose a topic's nuggets and to assign nuggets to an
answer (after castorini/nuggetizer's creator and assigner prompts), and the reading of their replies."""

from __future__ import annotations

import ast
import json
import re

MAX_NUGGETS = 30
ASSIGNMENT_LABELS = ("support", "partial_support", "not_support")
_LIST = re.compile(r"\[.*\]", re.S)

CREATE_PROMPT = """Write the list of atomic nuggets of information (1-12 words each) that a good answer to the query
must contain, from the query and the relevant passages below. At most {most} nuggets, the most vital first; mark each
"vital" (a good answer cannot leave it out) or "okay". Answer only with a JSON list of objects
{{"text": "...", "importance": "vital" | "okay"}}. Do not explain.

Search Query: {query}
Context:
{context}
Nuggets:"""

ASSIGN_PROMPT = """Based on the query and the answer, label each of the {count} nuggets either as support,
partial_support, or not_support. A nugget fully captured in the answer is support; partially captured,
partial_support; not captured at all, not_support. Answer only with a JSON list of the {count} labels, in the
nuggets' order. Do not explain.

Search Query: {query}
Answer: {answer}
Nugget List: {nuggets}
Labels:"""


SUPPORT_PROMPT = """Does the passage support the sentence? Answer "full" if the passage states everything the
sentence says, "partial" if it states some of it, "none" if it states none of it. Answer with one word. Do not
explain.

Sentence: {sentence}
Passage: {passage}
Support:"""
SUPPORT_LABELS = ("full", "partial", "none")


def support_prompt(*, sentence: str, passage: str) -> str:
    return SUPPORT_PROMPT.format(sentence=sentence, passage=passage)


def support_label(text: str) -> str | None:
    """The one support label a reply gives (its first word that is one), or None."""
    for word in re.findall(r"[a-z]+", (text or "").lower()):
        word = {"fully": "full", "partially": "partial", "no": "none", "not": "none"}.get(word, word)
        if word in SUPPORT_LABELS:
            return word
    return None


def creation_prompt(*, query: str, passages: list[tuple[str, str]], most: int = MAX_NUGGETS) -> str:
    context = "\n".join(f"[{index}] {text}" for index, (_, text) in enumerate(passages, start=1))
    return CREATE_PROMPT.format(query=query, context=context or "(no passage judged relevant yet)", most=most)


def assignment_prompt(*, query: str, answer: str, nuggets: list[str]) -> str:
    return ASSIGN_PROMPT.format(query=query, answer=answer, nuggets=json.dumps(nuggets), count=len(nuggets))


def _listed(text: str):
    """The first list the reply holds: JSON, or a Python literal (nuggetizer's models answer either)."""
    found = _LIST.search(text or "")
    if not found:
        return None
    for parse in (json.loads, ast.literal_eval):
        try:
            value = parse(found.group(0))
        except (ValueError, SyntaxError, RecursionError, TypeError, MemoryError):
            continue
        if isinstance(value, list):
            return value
    return None


def proposed_nuggets(text: str, *, most: int = MAX_NUGGETS) -> list[tuple[str, str]] | None:
    """[(text, importance)] from a creation reply (plain strings are "okay"), or None when it holds no list."""
    listed = _listed(text)
    if listed is None:
        return None
    nuggets = []
    for item in listed:
        if isinstance(item, str):
            words, importance = item, "okay"
        elif isinstance(item, dict) and isinstance(item.get("text"), str):
            words, importance = item["text"], item.get("importance")
            importance = importance if importance in ("vital", "okay") else "okay"
        else:
            continue
        words = " ".join(words.split())
        if words and words not in [n for n, _ in nuggets]:
            nuggets.append((words[:500], importance))
    return nuggets[:most]


def _label(value) -> str | None:
    if not isinstance(value, str):
        return None
    word = value.strip().lower().replace(" ", "_").replace("-", "_")
    word = {"supported": "support", "partial": "partial_support", "no_support": "not_support"}.get(word, word)
    return word if word in ASSIGNMENT_LABELS else None


def assigned_labels(text: str, count: int) -> list[str] | None:
    """The `count` labels of an assignment reply, in order, or None when it is not a list of that many valid ones
    (the call then counts as failed for every nugget)."""
    listed = _listed(text)
    if listed is None or len(listed) != count:
        return None
    labels = [_label(value) for value in listed]
    return None if None in labels else labels  # type: ignore[return-value]
