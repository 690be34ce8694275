"""Document files, streamed record by record: JSONL, TREC SGML (`<DOC><DOCNO>..</DOCNO>..</DOC>`) and TSV."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from .problems import MAX_RECORD_BYTES, Problems, Progress, first_key, json_objects, numbered_lines
from .sniffing import read_records

MAX_DOCNO_CHARS = 200
_JSON_DOCNO = ("docno", "doc_id", "docid", "id", "_id")
_JSON_BODY = ("text", "body", "contents")


@dataclass
class DocumentRecord:
    line: int
    docno: str
    title: str = ""
    body: str = ""
    url: str = ""
    extra: dict = field(default_factory=dict)


def parse_documents(
    path: str | Path, problems: Problems, *, format: str | None = None, name: str | None = None, progress=None
) -> Iterator[DocumentRecord]:
    """Yields documents one at a time (a file is never read whole); a docno repeated in the file is a problem."""
    readers = {"trec": _sgml, "jsonl": _jsonl, "tsv": _tsv}
    file = name or str(path)
    for record in read_records(
        path, readers, format=format, markup="<doc", file=file, key="docno", problems=problems, progress=progress
    ):
        if len(record.docno) > MAX_DOCNO_CHARS:
            problems.add(file, record.line, "docno", f"longer than {MAX_DOCNO_CHARS} characters")
        elif any(c.isspace() for c in record.docno):
            problems.add(file, record.line, "docno", f"{record.docno!r} contains white space (TREC files split on it)")
        else:
            yield record


def _jsonl(path, problems: Problems, file: str, progress: Progress | None) -> Iterator[DocumentRecord]:
    for number, value in json_objects(path, problems, name=file, progress=progress):
        key = first_key(value, _JSON_DOCNO)
        if key is None or not str(value[key]).strip():
            problems.add(file, number, "docno", f"missing; give one of {', '.join(_JSON_DOCNO)}")
            continue
        body_key = first_key(value, _JSON_BODY)
        known = {key, body_key, "title", "url"}
        yield DocumentRecord(
            number,
            str(value[key]).strip(),
            str(value.get("title") or ""),
            str(value.get(body_key) or "") if body_key else "",
            str(value.get("url") or ""),
            {k: v for k, v in value.items() if k not in known},
        )


def _tsv(path, problems: Problems, file: str, progress: Progress | None) -> Iterator[DocumentRecord]:
    for number, text in numbered_lines(path, problems, name=file, max_bytes=MAX_RECORD_BYTES, progress=progress):
        if not text.strip():
            continue
        columns = text.split("\t")
        if len(columns) not in (2, 3):
            problems.add(
                file,
                number,
                None,
                f"expected 'docno<TAB>text' or 'docno<TAB>title<TAB>text', got {len(columns)} columns",
            )
        elif not columns[0].strip():
            problems.add(file, number, "docno", "must not be empty")
        elif len(columns) == 2:
            yield DocumentRecord(number, columns[0].strip(), body=columns[1])
        else:
            yield DocumentRecord(number, columns[0].strip(), title=columns[1], body=columns[2])


_SGML_TAG = re.compile(r"<[^>]{1,64}>")
_TITLE_TAGS = ("title", "headline", "head", "h3")


def _sgml(path, problems: Problems, file: str, progress: Progress | None) -> Iterator[DocumentRecord]:
    """TREC SGML: <DOC> ... </DOC> blocks with a <DOCNO>; the body is the text of <TEXT> elements (or, failing
    that, of the whole block), the title that of the first title-like element; other markup is dropped."""
    block: list[str] | None = None
    start = 0
    for number, text in numbered_lines(path, problems, name=file, max_bytes=MAX_RECORD_BYTES, progress=progress):
        stripped = text.strip()
        upper = stripped.upper()
        if upper.startswith("<DOC>"):
            if block is not None:
                problems.add(file, start, None, "<DOC> not closed before the next <DOC>")
            block, start = [stripped[5:]], number
        elif block is not None and upper.endswith("</DOC>"):
            block.append(stripped[:-6])
            record = _sgml_record("\n".join(block), start, problems, file)
            if record:
                yield record
            block = None
        elif block is not None:
            block.append(text)
        elif stripped:
            problems.add(file, number, None, "text outside a <DOC> ... </DOC> block")
    if block is not None:
        problems.add(file, start, None, "<DOC> not closed at the end of the file")


def _element(block: str, tag: str) -> list[str]:
    return re.findall(rf"<{tag}(?:\s[^>]*)?>(.*?)</{tag}>", block, flags=re.IGNORECASE | re.DOTALL)


def _sgml_record(block: str, start: int, problems: Problems, file: str) -> DocumentRecord | None:
    docnos = _element(block, "DOCNO")
    if len(docnos) != 1 or not docnos[0].strip():
        problems.add(file, start, "DOCNO", "each <DOC> needs exactly one non-empty <DOCNO>")
        return None
    title = next((t for tag in _TITLE_TAGS for t in _element(block, tag)), "")
    texts = _element(block, "TEXT")
    body = "\n".join(texts) if texts else re.sub(r"<DOCNO>.*?</DOCNO>", "", block, flags=re.IGNORECASE | re.DOTALL)
    return DocumentRecord(start, docnos[0].strip(), _clean(title), _clean(body))


def _clean(text: str) -> str:
    return re.sub(r"[ \t]+", " ", _SGML_TAG.sub(" ", text)).strip()
