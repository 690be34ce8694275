"""The corpus step of a TREC-scale campaign: the pooled documents' text filled from a corpus file, into PostgreSQL.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/workbench REDIS_URL=redis://127.0.0.1:6379/4 \\
        .venv/bin/python benchmarks/corpus_fill.py [--placeholders 111304] [--corpus 1000000]

A collection whose runs named `--placeholders` documents it did not have (placeholders, no text; 301 topics, all
pooled), and a corpus JSONL of `--corpus` documents that holds them among the rest. Ours: `documents_import(...,
pooled_only=True)`, the service the web upload, the API and `import_documents --pooled-only` use (read the corpus
as a stream, keep the pooled documents, write their text), its writes a batch COPYed into a temporary table and one
UPDATE ... FROM it (`config.sql.update_many`). Peers, the same import in the same run on the same placeholders
emptied again: the last round's writes (one UPDATE ... FROM VALUES a batch) and the previous main's (Django's
`bulk_update`, a CASE per field per row, with that one function, `documents_upsert`, put back). The corpus read alone is
timed too (the same stream, the pooled documents parsed and kept, nothing written): the writes are the rest.
Target (#64): the writes in at most 10 s for 111,304 placeholders, memory flat.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
os.environ.setdefault("SECRET_KEY", __import__("secrets").token_urlsafe(50))


def _database() -> None:
    from benchmarks.fresh_database import fresh_postgres

    fresh_postgres("workbench_bench_corpus")
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)


def _previous_documents_upsert(*, collection, records, filled=None):
    """The previous main's `documents_upsert`: the stored rows as model instances, Django's bulk_update."""
    from judging.models import Document
    from judging.services.documents import DOCUMENT_FIELDS

    records = list(records)
    existing = {d.docno: d for d in Document.objects.filter(collection=collection,
                                                            docno__in=[r.docno for r in records])}  # fmt: skip
    if filled is not None:
        empty = {docno for docno, d in existing.items() if not d.body and not d.title}
        filled(sum(1 for r in records if r.docno in empty and (r.body or r.title)))
    new, changed, unchanged = [], [], 0
    for record in records:
        values = {name: getattr(record, name) for name in DOCUMENT_FIELDS}
        row = existing.get(record.docno)
        if row is None:
            new.append(Document(collection=collection, docno=record.docno, **values))
        elif any(getattr(row, name) != value for name, value in values.items()):
            for name, value in values.items():
                setattr(row, name, value)
            changed.append(row)
        else:
            unchanged += 1
    Document.objects.bulk_create(new, batch_size=2000)
    Document.objects.bulk_update(changed, DOCUMENT_FIELDS, batch_size=2000)
    return len(new), len(changed), unchanged


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--placeholders", type=int, default=111_304)
    parser.add_argument("--corpus", type=int, default=1_000_000)
    args = parser.parse_args()
    _database()
    from config.celery import app
    from judging import services
    from judging.imports import services as import_services
    from judging.imports.services import documents_import
    from judging.models import Document

    topics = 301
    collection = services.collection_create(name="corpus step", max_grade=3, relevance_threshold=2)
    services.topics_create(collection=collection, topics=[{"number": str(t)} for t in range(topics)])
    services.documents_create(collection=collection, documents=({"docno": f"doc{i:07d}"}
                                                                for i in range(args.placeholders)))  # fmt: skip
    per_topic = -(-args.placeholders // topics)
    scores = {str(t): {f"doc{i:07d}": float(1 + (i % 7)) for i in range(t * per_topic,
              min(args.placeholders, (t + 1) * per_topic))} for t in range(topics)}  # fmt: skip
    services.run_create(collection=collection, tag="r", scores=scores)
    services.pool_build_depth(collection=collection, depth=per_topic)
    folder = Path(tempfile.mkdtemp())
    corpus = folder / "corpus.jsonl"
    with open(corpus, "w") as out:
        for i in range(args.corpus):  # the placeholders spread through the corpus, every ninth line of it
            docno = f"doc{i // 9:07d}" if i % 9 == 0 and i // 9 < args.placeholders else f"other{i:07d}"
            out.write(json.dumps({"docno": docno, "title": f"title {i}", "body": f"the text of passage {i} " * 12})
                      + "\n")  # fmt: skip
    print(f"{args.placeholders:,} placeholders pooled over {topics} topics; corpus of {args.corpus:,} documents "
          f"({corpus.stat().st_size / 1e6:.0f} MB)")  # fmt: skip

    def emptied() -> None:
        Document.objects.filter(collection=collection).update(title="", body="")  # the placeholders again

    def timed(label: str) -> float:
        started = time.perf_counter()
        report = documents_import(collection=collection, path=corpus, pooled_only=True)
        seconds = time.perf_counter() - started
        app.control.purge()
        print(f"  {label}: {seconds:6.1f} s, {report.filled:,} filled, peak memory "
              f"{resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB so far")  # fmt: skip
        return seconds

    from judging.imports.core.documents import parse_documents
    from judging.imports.core.problems import Problems
    from judging.selectors import docnos_wanted

    started = time.perf_counter()
    wanted = docnos_wanted(collection=collection, top_k=None)
    kept = sum(not r.passed_over for r in parse_documents(corpus, Problems(), keep=wanted.__contains__))
    read = time.perf_counter() - started
    print(f"  the corpus read alone (the pooled documents parsed, nothing written): {read:6.1f} s, {kept:,} kept")
    ours = timed("ours (COPY into a temporary table, one UPDATE ... FROM it a batch)")
    emptied()
    from config import sql

    copied = sql.update_many
    sql.update_many = lambda model, fields, rows: sql.run_together(sql.updates(model, fields, rows))
    try:
        values = timed("last round's (one UPDATE ... FROM VALUES a batch)")
    finally:
        sql.update_many = copied
    emptied()
    current = import_services.documents_upsert
    import_services.documents_upsert = _previous_documents_upsert
    try:
        before = timed("previous main (bulk_update)")
    finally:
        import_services.documents_upsert = current
    print(f"  the writes beyond the read: ours {ours - read:.1f} s, last round's {values - read:.1f} s "
          f"({(values - read) / max(ours - read, 1e-9):.1f}x), the previous main's {before - read:.1f} s "
          f"({(before - read) / max(ours - read, 1e-9):.1f}x); target: at most 10 s")  # fmt: skip


if __name__ == "__main__":
    main()
