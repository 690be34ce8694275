"""A corpus of malformed import files, each with the line and field its refusal must name.

The collection they are imported into (see `tests/judging/imports/test_malformed_imports.py`) has topics 401 and 402,
documents D0..D5 and a 0..2 scale. Each case is (kind, file name, bytes, line, field); line 0 is the whole file.
"""

from __future__ import annotations

import json
from typing import NamedTuple


class Malformed(NamedTuple):
    kind: str
    name: str
    content: bytes
    line: int
    field: str | None


LONG_LINE = 10_001  # the default line limit is 10,000 bytes
DEEP = 40  # deeper than the 32 levels a JSON value may nest
VERY_DEEP = 100_000  # deeper than Python's parser can go


def _run(*lines: str | bytes) -> bytes:
    return b"".join((line if isinstance(line, bytes) else line.encode()) + b"\n" for line in lines)


GOOD_RUN = "401 Q0 D1 1 2.0 sys"
GOOD_QRELS = "401 0 D1 1"

RUNS = [
    ("nul-in-docno", _run(GOOD_RUN, "401 Q0 D2\x00 2 1.0 sys"), 2, "docno"),
    ("nul-in-tag", _run("401 Q0 D2 2 1.0 s\x00ys"), 1, "tag"),
    ("nul-in-qid", _run("40\x001 Q0 D2 2 1.0 sys"), 1, "qid"),
    ("qid-65-chars", _run(f"{'4' * 65} Q0 D2 2 1.0 sys"), 1, "qid"),
    ("tag-201-chars", _run(f"401 Q0 D2 2 1.0 {'t' * 201}"), 1, "tag"),
    ("docno-201-chars", _run(f"401 Q0 {'D' * 201} 2 1.0 sys"), 1, "docno"),
    ("score-text", _run("401 Q0 D2 2 high sys"), 1, "score"),
    ("score-nan", _run("401 Q0 D2 2 nan sys"), 1, "score"),
    ("score-inf", _run("401 Q0 D2 2 -inf sys"), 1, "score"),
    ("five-columns", _run("401 Q0 D2 2 1.0"), 1, None),
    ("latin1-bytes", _run(GOOD_RUN, b"401 Q0 D\xe9 2 1.0 sys"), 2, None),
    ("line-too-long", _run(GOOD_RUN, "401 Q0 D2 2 1.0 " + "s" * LONG_LINE), 2, None),
    ("unknown-topic", _run("499 Q0 D2 2 1.0 sys"), 1, "qid"),
    ("unknown-docno", _run("401 Q0 NOPE 2 1.0 sys"), 1, "docno"),
    ("repeated-docno", _run(GOOD_RUN, "401 Q0 D1 2 1.0 sys"), 2, "docno"),
    ("empty-file", b"", 0, None),
    ("only-a-nul", b"\x00\n", 1, None),
]

QRELS = [
    ("nul-in-docno", _run(GOOD_QRELS, "401 0 D\x002 1"), 2, "docno"),
    ("nul-in-qid", _run("4\x0001 0 D2 1"), 1, "qid"),
    ("nul-in-assessor", _run("401 0 D2 1 al\x00ice"), 1, "assessor"),
    ("assessor-151-chars", _run(f"401 0 D2 1 {'a' * 151}"), 1, "assessor"),
    ("qid-65-chars", _run(f"{'4' * 65} 0 D2 1"), 1, "qid"),
    ("grade-text", _run("401 0 D2 yes"), 1, "grade"),
    ("grade-fraction", _run("401 0 D2 1.5"), 1, "grade"),
    ("grade-above-scale", _run("401 0 D2 3"), 1, "grade"),
    ("grade-negative", _run("401 0 D2 -1"), 1, "grade"),
    ("three-columns", _run("401 0 D2"), 1, None),
    ("six-columns", _run("401 0 D2 1 alice extra"), 1, None),
    ("latin1-bytes", _run(b"401 0 D\xe9 1"), 1, None),
    ("line-too-long", _run("401 0 D2 1 " + "a" * LONG_LINE), 1, None),
    ("unknown-topic", _run("499 0 D2 1"), 1, "qid"),
    ("unknown-docno", _run("401 0 NOPE 1"), 1, "docno"),
    ("judged-twice", _run(GOOD_QRELS, "401 0 D1 2"), 2, "docno"),
    ("empty-file", b"", 0, None),
]


def _jsonl(*objects) -> bytes:
    return b"".join((o if isinstance(o, bytes) else json.dumps(o).encode()) + b"\n" for o in objects)


def _nested(depth: int):
    value = "leaf"
    for _ in range(depth):
        value = {"k": value}
    return value


TOPICS = [
    ("tsv-nul-in-id", _run("4\x0003\tquery"), 1, "number"),
    ("tsv-nul-in-text", _run("403\tque\x00ry"), 1, "title"),
    ("tsv-id-65-chars", _run(f"{'4' * 65}\tquery"), 1, "number"),
    ("tsv-three-columns", _run("403\tquery\tmore"), 1, None),
    ("tsv-empty-id", _run(" \tquery"), 1, "id"),
    ("tsv-empty-text", _run("403\t "), 1, "text"),
    ("tsv-repeated-id", _run("403\tq", "403\tr"), 2, "number"),
    ("tsv-latin1", _run(b"403\tcaf\xe9"), 1, None),
    ("tsv-line-too-long", _run("403\t" + "q" * LONG_LINE), 1, None),
    ("jsonl-not-json", _jsonl({"number": "403", "title": "q"}, b'{"number": "404", "title": '), 2, None),
    ("jsonl-array", _jsonl(["403", "q"]), 1, None),
    ("jsonl-no-number", _jsonl({"title": "q"}), 1, "number"),
    ("jsonl-no-title", _jsonl({"number": "403"}), 1, "title"),
    ("jsonl-title-not-text", _jsonl({"number": "403", "title": 7}), 1, "title"),
    ("jsonl-nul-escape", _jsonl({"number": "403", "title": "q\u0000"}), 1, "title"),
    ("jsonl-nul-in-extra-key", _jsonl({"number": "403", "title": "q", "meta": {"a\u0000": 1}}), 1, "meta"),
    ("jsonl-deep-extra", _jsonl({"number": "403", "title": "q", "meta": _nested(DEEP)}), 1, "meta"),
    (
        "jsonl-very-deep",
        b'{"number": "403", "title": "q", "x": ' + b"[" * VERY_DEEP + b"]" * VERY_DEEP + b"}\n",
        1,
        None,
    ),
    ("trec-no-num", _run("<top>", "<title> q", "</top>"), 1, "num"),
    ("trec-no-title", _run("<top>", "<num> Number: 403", "</top>"), 1, "title"),
    ("trec-unclosed", _run("<top>", "<num> 403", "<title> q"), 1, None),
    ("trec-nul-in-title", _run("<top>", "<num> 403", "<title> q\x00q", "</top>"), 1, "title"),
    ("empty-file", b"", 0, None),
]

DOCUMENTS = [
    ("tsv-nul-in-docno", _run("D9\x00\ttext"), 1, "docno"),
    ("tsv-nul-in-body", _run("D9\tte\x00xt"), 1, "body"),
    ("tsv-docno-201-chars", _run(f"{'D' * 201}\ttext"), 1, "docno"),
    ("tsv-four-columns", _run("D9\ta\tb\tc"), 1, None),
    ("tsv-empty-docno", _run(" \ttext"), 1, "docno"),
    ("tsv-repeated-docno", _run("D9\ta", "D9\tb"), 2, "docno"),
    ("tsv-latin1", _run(b"D9\tcaf\xe9"), 1, None),
    ("jsonl-docno-with-space", _jsonl({"docno": "D 9", "text": "t"}), 1, "docno"),
    ("jsonl-url-2001-chars", _jsonl({"docno": "D9", "text": "t", "url": "http://x/" + "u" * 1992}), 1, "url"),
    ("jsonl-no-docno", _jsonl({"text": "t"}), 1, "docno"),
    ("jsonl-not-object", _jsonl("just a string"), 1, None),
    ("jsonl-not-json", _run("{docno: D9}"), 1, None),
    ("jsonl-nul-escape", _jsonl({"docno": "D9", "text": "a\u0000b"}), 1, "text"),
    ("jsonl-deep-extra", _jsonl({"docno": "D9", "text": "t", "meta": _nested(DEEP)}), 1, "meta"),
    ("jsonl-very-deep", b'{"docno": "D9", "x": ' + b"[" * VERY_DEEP + b"]" * VERY_DEEP + b"}\n", 1, None),
    ("sgml-no-docno", _run("<DOC>", "<TEXT>t</TEXT>", "</DOC>"), 1, "DOCNO"),
    ("sgml-two-docnos", _run("<DOC>", "<DOCNO>D9</DOCNO><DOCNO>D8</DOCNO>", "</DOC>"), 1, "DOCNO"),
    ("sgml-unclosed", _run("<DOC>", "<DOCNO>D9</DOCNO>"), 1, None),
    ("sgml-text-outside", _run("<DOC>", "<DOCNO>D9</DOCNO>", "</DOC>", "stray"), 4, None),
    ("sgml-nul-in-docno", _run("<DOC>", "<DOCNO>D\x009</DOCNO>", "</DOC>"), 1, "docno"),
    ("empty-file", b"", 0, None),
]

CASES = [
    Malformed(kind, f"{kind}-{name}", content, line, field)
    for kind, cases in (("runs", RUNS), ("qrels", QRELS), ("topics", TOPICS), ("documents", DOCUMENTS))
    for name, content, line, field in cases
]
