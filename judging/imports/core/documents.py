"""Document files, streamed record by record: JSONL, TREC SGML (`<DOC><DOCNO>..</DOCNO>..</DOC>`) and TSV."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

from judging.imports.core.fields import identifier, identifier_problem, text_problem
from judging.imports.core.problems import (
    Problems,
    Progress,
    first_key,
    json_object,
    json_objects,
    limit,
    numbered_lines,
)
from judging.imports.core.sniffing import read_records

MAX_DOCNO_CHARS = 200
MAX_URL_CHARS = 2000
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
    passed_over: bool = False  # not wanted (`keep`): only its docno was read


def parse_documents(
    path: str | Path,
    problems: Problems,
    *,
    format: str | None = None,
    name: str | None = None,
    progress=None,
    keep: Callable[[str], bool] | None = None,
) -> Iterator[DocumentRecord]:
    """Yields documents one at a time (a file is never read whole); a docno repeated in the file is a problem.
    With `keep` (the docnos an import wants), the others are yielded marked `passed_over`: a JSON line whose docno
    is plain and first is not even parsed, so the lines of a corpus no pool wants cost a look at their start."""
    readers = {"trec": _sgml, "jsonl": partial(_jsonl, keep=keep), "tsv": _tsv}
    yield from read_records(
        path,
        readers,
        format=format,
        markup="<doc",
        file=name or str(path),
        key="docno",
        problems=problems,
        progress=progress,
        most=limit("documents_per_file"),
        noun="documents",
        check=_record_problem,
        keep=keep,
    )


def _record_problem(record: DocumentRecord) -> tuple[str, str] | None:
    """The first (field, reason) that keeps a document out of the database, if any; normalises the docno."""
    record.docno = identifier(record.docno)
    reason = identifier_problem(record.docno)
    if reason:
        return "docno", reason
    if any(c.isspace() for c in record.docno):
        return "docno", f"{record.docno!r} contains white space (TREC files split on it)"
    for name, max_chars in (("docno", MAX_DOCNO_CHARS), ("url", MAX_URL_CHARS), ("title", None), ("body", None)):
        reason = text_problem(getattr(record, name), max_chars)
        if reason:
            return name, reason
    return None


# A JSON line that opens with its docno, plain (no escape), as corpora write them: {"docno": "D1", ...}.
_LEADING_DOCNO = re.compile(r'\s*\{\s*"(' + "|".join(_JSON_DOCNO) + r')"\s*:\s*"([^"\\]{1,200})"')


def _unwanted(text: str, keep: Callable[[str], bool]) -> str | None:
    """The docno of a line that is surely not wanted, read from its start without parsing it; None to parse it (the
    docno is not first or not plain, or a key that comes before it in `_JSON_DOCNO` may be further on)."""
    found = _LEADING_DOCNO.match(text)
    if found is None or not found.group(2).isascii():
        return None
    key, docno = found.groups()
    if any(f'"{other}"' in text for other in _JSON_DOCNO[: _JSON_DOCNO.index(key)]):
        return None
    return None if keep(docno.strip()) else docno.strip()


def _jsonl(
    path, problems: Problems, file: str, progress: Progress | None, keep: Callable[[str], bool] | None = None
) -> Iterator[DocumentRecord]:
    if keep is not None:
        yield from _jsonl_wanted(path, problems, file, progress, keep)
        return
    for number, value in json_objects(path, problems, name=file, progress=progress):
        yield from _json_record(number, value, problems, file)


def _json_record(number: int, value: dict, problems: Problems, file: str) -> Iterator[DocumentRecord]:
    key = first_key(value, _JSON_DOCNO)
    if key is None or not str(value[key]).strip():
        problems.add(file, number, "docno", f"missing; give one of {', '.join(_JSON_DOCNO)}")
        return
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


def _jsonl_wanted(path, problems: Problems, file: str, progress, keep) -> Iterator[DocumentRecord]:
    """`_jsonl` for an import that wants a few docnos: a line whose plain leading docno is not wanted is passed over
    unparsed; every other line is read as `_jsonl` reads it."""
    for number, text in numbered_lines(path, problems, name=file, max_bytes=limit("record_bytes"), progress=progress):
        unwanted = _unwanted(text, keep)
        if unwanted is not None:
            yield DocumentRecord(number, unwanted, passed_over=True)
            continue
        value = json_object(text, number, problems, name=file)
        if value is not None:
            yield from _json_record(number, value, problems, file)


def _tsv(path, problems: Problems, file: str, progress: Progress | None) -> Iterator[DocumentRecord]:
    for number, text in numbered_lines(path, problems, name=file, max_bytes=limit("record_bytes"), progress=progress):
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
_ELEMENT_TAG = re.compile(r"<(/?)([A-Za-z][A-Za-z0-9]{0,15})(?:\s[^<>]{0,200})?>")
_TITLE_TAGS = ("title", "headline", "head", "h3")


def _sgml(path, problems: Problems, file: str, progress: Progress | None) -> Iterator[DocumentRecord]:
    """TREC SGML: <DOC> ... </DOC> blocks with a <DOCNO>; the body is the text of <TEXT> elements (or, failing
    that, of the whole block), the title that of the first title-like element; other markup is dropped. A block
    larger than the record limit is refused without being kept in memory."""
    block: list[str] | None = None
    size, start, too_long = 0, 0, False
    most = limit("record_bytes")
    for number, text in numbered_lines(path, problems, name=file, max_bytes=most, progress=progress):
        stripped = text.strip()
        upper = stripped.upper()
        if upper.startswith("<DOC>"):
            if block is not None:
                problems.add(file, start, None, "<DOC> not closed before the next <DOC>")
            block, start, size, too_long = [stripped[5:]], number, len(text), False
        elif block is not None and upper.endswith("</DOC>"):
            block.append(stripped[:-6])
            if too_long:
                problems.add(file, start, None, f"document longer than {most:,} bytes (the record limit)")
            else:
                record = _sgml_record("\n".join(block), start, problems, file)
                if record:
                    yield record
            block = None
        elif block is not None and not too_long:
            size += len(text) + 1
            if size > most:
                too_long, block = True, []
            else:
                block.append(text)
        elif block is None and stripped:
            problems.add(file, number, None, "text outside a <DOC> ... </DOC> block")
    if block is not None:
        problems.add(file, start, None, "<DOC> not closed at the end of the file")


def _elements(block: str) -> dict[str, list[tuple[int, int]]]:
    """The (start, end) of each element's content by lower-case tag name, in one pass over the block: an element
    runs from its first opening tag to the next closing one (as a lazy regular expression would match it, but in
    linear time whatever the markup, e.g. thousands of unclosed tags)."""
    found: dict[str, list[tuple[int, int]]] = {}
    opened: dict[str, int] = {}
    for tag in _ELEMENT_TAG.finditer(block):
        name = tag.group(2).lower()
        if not tag.group(1):
            opened.setdefault(name, tag.end())
        elif name in opened:
            found.setdefault(name, []).append((opened.pop(name), tag.start()))
    return found


def _sgml_record(block: str, start: int, problems: Problems, file: str) -> DocumentRecord | None:
    elements = _elements(block)
    docnos = [block[a:b] for a, b in elements.get("docno", [])]
    if len(docnos) != 1 or not docnos[0].strip():
        problems.add(file, start, "DOCNO", "each <DOC> needs exactly one non-empty <DOCNO>")
        return None
    title = next((block[a:b] for tag in _TITLE_TAGS for a, b in elements.get(tag, [])), "")
    texts = [block[a:b] for a, b in elements.get("text", [])]
    if texts:
        body = "\n".join(texts)
    else:
        a, b = elements["docno"][0]
        body = block[: block.rfind("<", 0, a)] + block[block.find(">", b) + 1 :]
    return DocumentRecord(start, docnos[0].strip(), _clean(title), _clean(body))


def _clean(text: str) -> str:
    return re.sub(r"[ \t]+", " ", _SGML_TAG.sub(" ", text)).strip()
