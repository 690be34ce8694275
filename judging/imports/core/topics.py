"""Topic files: TREC (`<top> <num> <title> <desc> <narr> </top>`), TSV (`id<TAB>text`) and JSONL."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from judging.imports.core.fields import identifier, identifier_problem, text_problem
from judging.imports.core.problems import Problems, Progress, first_key, json_objects, limit, numbered_lines
from judging.imports.core.sniffing import read_records

MAX_NUMBER_CHARS = 64
FIELD_LIMITS = (("number", MAX_NUMBER_CHARS), ("title", 10_000), ("description", None), ("narrative", None))
_TAG = re.compile(r"^\s*<(/?)(top|num|title|desc|narr)>\s*", re.IGNORECASE)
_LABELS = {"num": "Number:", "desc": "Description:", "narr": "Narrative:"}


@dataclass
class TopicRecord:
    line: int
    number: str
    title: str
    description: str = ""
    narrative: str = ""
    extra: dict = field(default_factory=dict)


def parse_topics(
    path: str | Path, problems: Problems, *, format: str | None = None, name: str | None = None, progress=None
) -> Iterator[TopicRecord]:
    """Yields the topics of a file; malformed ones become problems (a number repeated in the file, too)."""
    readers = {"trec": _trec, "tsv": _tsv, "jsonl": _jsonl}
    yield from read_records(
        path,
        readers,
        format=format,
        markup="<top",
        file=name or str(path),
        key="number",
        problems=problems,
        progress=progress,
        most=limit("topics_per_file"),
        noun="topics",
        check=_record_problem,
    )


def _record_problem(record: TopicRecord) -> tuple[str, str] | None:
    """The first (field, reason) that keeps a topic out of the database, if any; normalises the number."""
    record.number = identifier(record.number)
    reason = identifier_problem(record.number)
    if reason:
        return "number", reason
    for name, max_chars in FIELD_LIMITS:
        reason = text_problem(getattr(record, name), max_chars)
        if reason:
            return name, reason
    return None


def _tsv(path, problems: Problems, file: str, progress: Progress | None) -> Iterator[TopicRecord]:
    for number, text in numbered_lines(path, problems, name=file, progress=progress):
        if not text.strip():
            continue
        columns = text.split("\t")
        if len(columns) != 2:
            problems.add(file, number, None, f"expected 2 tab-separated columns 'id<TAB>text', got {len(columns)}")
        elif not columns[0].strip() or not columns[1].strip():
            problems.add(file, number, "id" if not columns[0].strip() else "text", "must not be empty")
        else:
            yield TopicRecord(number, columns[0].strip(), columns[1].strip())


_JSON_NUMBER = ("number", "qid", "query_id", "id", "num")
_JSON_TITLE = ("title", "query", "text")


def _jsonl(path, problems: Problems, file: str, progress: Progress | None) -> Iterator[TopicRecord]:
    for number, value in json_objects(path, problems, name=file, progress=progress):
        key = first_key(value, _JSON_NUMBER)
        title_key = first_key(value, _JSON_TITLE)
        if key is None or not str(value[key]).strip():
            problems.add(file, number, "number", f"missing; give one of {', '.join(_JSON_NUMBER)}")
            continue
        if title_key is None or not isinstance(value[title_key], str) or not value[title_key].strip():
            problems.add(file, number, "title", f"missing or not text; give one of {', '.join(_JSON_TITLE)}")
            continue
        known = {key, title_key, "description", "narrative"}
        yield TopicRecord(
            number,
            str(value[key]).strip(),
            value[title_key].strip(),
            str(value.get("description") or "").strip(),
            str(value.get("narrative") or "").strip(),
            {k: v for k, v in value.items() if k not in known},
        )


def _trec(path, problems: Problems, file: str, progress: Progress | None) -> Iterator[TopicRecord]:
    """TREC topic files: fields run from their tag to the next tag; labels like 'Number:' are dropped."""
    fields: dict[str, list[str]] | None = None
    current, start = None, 0
    for number, text in numbered_lines(path, problems, name=file, max_bytes=limit("record_bytes"), progress=progress):
        match = _TAG.match(text)
        while match:
            closing, tag = match.group(1), match.group(2).lower()
            text = text[match.end() :]
            if tag == "top" and not closing:
                if fields is not None:
                    problems.add(file, start, None, "<top> not closed before the next <top>")
                fields, current, start = {}, None, number
            elif tag == "top":
                if fields is None:
                    problems.add(file, number, None, "</top> without a <top>")
                else:
                    record = _trec_record(fields, start, problems, file)
                    if record:
                        yield record
                fields, current = None, None
            elif fields is None:
                problems.add(file, number, tag, f"<{tag}> outside a <top> ... </top> block")
            else:
                current = None if closing else tag
                if current:
                    fields.setdefault(current, [])
            match = _TAG.match(text)
        if current and fields is not None and text.strip():
            fields[current].append(re.sub(r"</\w+>\s*$", "", text.strip()))
    if fields is not None:
        problems.add(file, start, None, "<top> not closed at the end of the file")


def _trec_record(fields: dict[str, list[str]], start: int, problems: Problems, file: str) -> TopicRecord | None:
    def value(tag: str) -> str:
        text = " ".join(fields.get(tag, [])).strip()
        label = _LABELS.get(tag)
        if label and text.lower().startswith(label.lower()):
            text = text[len(label) :].strip()
        return text

    number, title = value("num"), value("title")
    if not number:
        problems.add(file, start, "num", "topic has no <num>")
        return None
    if not title:
        problems.add(file, start, "title", f"topic {number!r} has no <title>")
        return None
    return TopicRecord(start, number, title, value("desc"), value("narr"))
