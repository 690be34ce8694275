"""ir_datasets, offline by default (pure: no Django). ir_datasets has no offline switch and downloads whatever a
dataset lacks the moment it is read; `offline` stands in its way for the time of an import: a file ir_datasets
would fetch is instead named, with where to put it, and nothing is sent. Ids come in both spellings users type:
`irds:msmarco-passage/trec-dl-2019/judged` (PyTerrier's) or the bare id (ir_measures' command line)."""

from __future__ import annotations

import contextlib
import gzip
import lzma
import os
import tarfile
import zipfile
import zlib
from collections.abc import Iterator
from pathlib import Path

from judging.core.identifiers import dataset_id  # noqa: F401  (the feature's own spelling of it)


class DatasetUnavailable(Exception):
    """The dataset cannot be read here: an unknown id, a file it needs that is not on this machine (`missing`:
    [(where ir_datasets keeps it, the addresses it knows for it)]), or a file that is not what it should be."""

    def __init__(self, message: str, missing: list[tuple[str, list[str]]] | None = None):
        super().__init__(message)
        self.missing = missing or []


def _sources(download) -> list[str]:
    """The addresses ir_datasets knows for a file (its mirrors' URLs)."""
    return [str(getattr(m, "url", None) or getattr(m, "uri", "")) for m in getattr(download, "mirrors", [])]


def missing_message(missing: list[tuple[str, list[str]]]) -> str:
    """Every missing file at once, each with where to put it and where ir_datasets would fetch it from."""
    lines = [f"{path} (from {' or '.join(urls)})" if urls else path for path, urls in missing]
    noun = "file is" if len(lines) == 1 else f"{len(lines)} files are"
    return (
        f"the dataset's {noun} missing: " + "; ".join(lines) + f". Put them there (IR_DATASETS_HOME is {home()}), "
        "or let the operator allow downloads (WORKBENCH_DATASETS_DOWNLOAD=1)"
    )


# What a file that is not the archive it should be raises as it is opened (an HTML page saved in place of a
# .tar.gz, a truncated download).
_NOT_AN_ARCHIVE = (gzip.BadGzipFile, tarfile.ReadError, zipfile.BadZipFile, zlib.error, EOFError, lzma.LZMAError)


def home() -> Path:
    return Path(os.environ.get("IR_DATASETS_HOME") or Path.home() / ".ir_datasets")


@contextlib.contextmanager
def offline(allowed: bool) -> Iterator[None]:
    """While the block runs, a file ir_datasets would download raises DatasetUnavailable naming it (its cache path
    under IR_DATASETS_HOME, or the URL it would stream from) instead of going to the network; a missing local file
    is named the same way. With `allowed`, nothing is stopped."""
    from ir_datasets.util import download

    if allowed:
        yield
        return
    original_path, original_stream = download.Download.path, download.RequestsDownload.stream

    opened: list[str] = []  # the files read, last one last: the one an archive error is about

    def path(self, force=True):
        cache = getattr(self, "_cache_path", None)
        if force and self._path is None and cache and cache != os.devnull and not os.path.exists(cache):
            missing = [(cache, _sources(self))]
            raise DatasetUnavailable(missing_message(missing), missing)
        found = original_path(self, force)
        opened.append(str(found))
        return found

    def stream(self):
        raise DatasetUnavailable(
            f"ir_datasets would download {self.url}: offline, put the file it caches under IR_DATASETS_HOME "
            f"({home()}), or let the operator allow downloads (WORKBENCH_DATASETS_DOWNLOAD=1)"
        )

    download.Download.path, download.RequestsDownload.stream = path, stream
    try:
        yield
    except FileNotFoundError as missing:
        raise DatasetUnavailable(f"the file {missing} is missing (IR_DATASETS_HOME is {home()})") from missing
    except _NOT_AN_ARCHIVE as broken:
        which = opened[-1] if opened else "a file of the dataset"
        raise DatasetUnavailable(
            f"{which} is not a valid archive ({type(broken).__name__}: {broken}): an HTML page saved in its "
            "place, or a download cut short? Fetch it again from its source"
        ) from broken
    finally:
        download.Download.path, download.RequestsDownload.stream = original_path, original_stream


def missing_files(dataset, parts: list[str]) -> list[tuple[str, list[str]]]:
    """Every file the dataset's `parts` ("queries", "qrels", "docs") need that is not on this machine, each with the
    addresses ir_datasets knows for it: call inside `offline(False)`. Each part is opened (its first record read)
    on its own, so one missing file does not hide the others."""
    missing: list[tuple[str, list[str]]] = []
    for part in parts:
        if not getattr(dataset, f"has_{part}")():
            continue
        try:
            next(iter(getattr(dataset, f"{part}_iter")()), None)
        except DatasetUnavailable as unavailable:
            missing += [m for m in unavailable.missing if m not in missing]
            if not unavailable.missing:
                raise
    return missing


def load(ident: str):
    import ir_datasets

    try:
        return ir_datasets.load(ident)
    except KeyError as error:
        raise DatasetUnavailable(f"ir_datasets has no dataset {ident!r}") from error


def _text(record, *names: str) -> str:
    for name in names:
        value = getattr(record, name, None)
        if value:
            return str(value)
    return ""


def topics(dataset) -> Iterator[dict]:
    """{number, title, description, narrative} of each query (TREC topics keep their fields)."""
    for query in dataset.queries_iter():
        yield {"number": str(query.query_id), "title": _text(query, "title", "text", "query"),
               "description": _text(query, "description"), "narrative": _text(query, "narrative")}  # fmt: skip


def qrels(dataset) -> Iterator[tuple[str, str, int]]:
    for qrel in dataset.qrels_iter():
        yield str(qrel.query_id), str(qrel.doc_id), int(qrel.relevance)


def documents(dataset) -> Iterator[dict]:
    for document in dataset.docs_iter():
        yield {"docno": str(document.doc_id), "title": _text(document, "title"),
               "body": _text(document, "text", "body", "passage", "abstract")}  # fmt: skip


def stored_document(dataset, docno: str) -> dict | None:
    """{docno, title, body} of one document from the dataset's document store (an index ir_datasets builds or
    ships beside the corpus), or None when the store does not have it."""
    found = dataset.docs_store().get_many([docno]).get(docno)
    if found is None:
        return None
    return {"docno": docno, "title": _text(found, "title"), "body": _text(found, "text", "body", "passage", "abstract")}
