"""Only the documents the pool needs (#51, item 2): a corpus file of any size (JSONL, TSV or TREC SGML, gzip too) is
read as a stream and only the pooled documents (and, asked, the runs' top k) are kept, the rest passed over and
counted, in flat memory; placeholders get their text; the option is on the command, the page and the API."""

from __future__ import annotations

import gzip
import json
import tracemalloc

import pytest
from django.core.management import call_command

from judging.imports.services import documents_import, runs_import
from judging.models import Document, PoolItem
from judging.services.pools import pool_build
from tests.factories import make_collection

pytestmark = pytest.mark.django_db
CORPUS_SIZE = 40_000


def _corpus(tmp_path, count=CORPUS_SIZE, name="corpus.jsonl.gz"):
    path = tmp_path / name
    with gzip.open(path, "wt") as handle:
        for i in range(count):
            handle.write(json.dumps({"id": f"D{i}", "title": f"title {i}", "text": "words of a passage " * 5}) + "\n")
    return path


def _pooled_collection(tmp_path):
    collection = make_collection(topics=0, documents=0, runs=0)
    run = "".join(f"{t} Q0 D{t * 100 + d} {d + 1} {50 - d} bm25\n" for t in (1, 2) for d in range(30))
    (tmp_path / "r.run").write_text(run)
    runs_import(collection=collection, paths=[tmp_path / "r.run"], names=["r.run"], create_missing=True)
    pool_build(collection=collection, strategy="depth", depth=10)
    return collection


def test_only_the_pooled_documents_of_a_gzipped_corpus_are_kept_and_the_rest_counted(tmp_path):
    collection = _pooled_collection(tmp_path)
    pooled = set(PoolItem.objects.filter(topic__collection=collection).values_list("document__docno", flat=True))
    report = documents_import(collection=collection, path=_corpus(tmp_path), pooled_only=True)
    assert (report.updated, report.passed_over) == (len(pooled), CORPUS_SIZE - len(pooled))
    filled = Document.objects.get(collection=collection, docno="D105")
    assert filled.title == "title 105" and filled.extra != {"placeholder": True}
    assert Document.objects.get(collection=collection, docno="D125").title == ""  # ranked 26th: not pooled


def test_the_runs_top_k_can_be_kept_too(tmp_path):
    collection = _pooled_collection(tmp_path)
    report = documents_import(collection=collection, path=_corpus(tmp_path), pooled_only=True, top_k=20)
    assert report.updated == 40 and Document.objects.get(collection=collection, docno="D119").title == "title 119"


def test_memory_stays_flat_whatever_the_corpus_holds(tmp_path):
    collection = _pooled_collection(tmp_path)
    path = _corpus(tmp_path)
    tracemalloc.start()
    documents_import(collection=collection, path=path, pooled_only=True)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    # 40,000 records held at once would take tens of MB; a stream holds one line and one batch of the wanted.
    assert peak < 8 * 1024 * 1024, peak


def test_the_command_takes_the_option(tmp_path, capsys):
    collection = _pooled_collection(tmp_path)
    call_command("import_documents", str(collection.id), str(_corpus(tmp_path, 500)), "--pooled-only")
    assert "passed over 480 no pool wants" in capsys.readouterr().out


def test_the_page_and_the_api_take_the_option(client, tmp_path, settings, django_capture_on_commit_callbacks):
    from django.core.files.uploadedfile import SimpleUploadedFile
    from django.urls import reverse

    from judging.jobs.models import Job
    from tests.api_clients import role_clients
    from tests.factories import make_user

    settings.MEDIA_ROOT = tmp_path
    collection = _pooled_collection(tmp_path)
    corpus = _corpus(tmp_path, 300).read_bytes()
    client.force_login(make_user("admin"))
    data = {"kind": "documents", "file": SimpleUploadedFile("corpus.jsonl.gz", corpus), "pooled_only": "on"}
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(reverse("judging:import", args=[collection.id]), data)
    job = Job.objects.get(pk=int(response.url.rstrip("/").split("/")[-1]))
    assert job.state == "done" and job.result["passed_over"] == 280, job.result
    assert 'data-passed-over="280"' in client.get(reverse("judging:job", args=[job.id])).content.decode()
    answer = role_clients()["admin"].post(
        f"/api/collections/{collection.id}/imports/",
        {"kind": "documents", "file": SimpleUploadedFile("c.jsonl.gz", corpus), "pooled_only": "true", "top_k": 5},
        format="multipart",
    )
    assert answer.status_code == 202
    arguments = Job.objects.get(pk=answer.json()["id"]).arguments
    assert (arguments["pooled_only"], arguments["top_k"]) == (True, 5)


def test_lines_no_pool_wants_are_passed_over_by_their_docno_unread_and_uncounted(tmp_path, settings):
    from judging.imports.core.problems import ImportFailed

    collection = make_collection(topics=1, documents=3, runs=1, depth=2)  # d0..d2; the pool holds two of them
    pooled = PoolItem.objects.filter(topic__collection=collection)
    wanted = set(pooled.values_list("document__docno", flat=True))
    settings.WORKBENCH_LIMITS = {**settings.WORKBENCH_LIMITS, "documents_per_file": len(wanted)}
    lines = [
        '{"docno": "x1", "text": broken JSON no pool wants}',  # passed over unread
        '{"docno": "x1", "text": "the same docno again"}',  # a repeat of a passed-over docno: no problem
        *(f'{{"docno": "x{i}", "text": "t"}}' for i in range(2, 12)),  # more than the per-file limit
        '{"id": "x20", "docno": "' + sorted(wanted)[0] + '", "text": "wanted: docno wins over id"}',
        *(json.dumps({"docno": d, "text": f"text of {d}"}) for d in sorted(wanted)[1:]),
    ]
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text("\n".join(lines) + "\n")
    report = documents_import(collection=collection, path=corpus, pooled_only=True)
    assert report.passed_over == 12
    first = Document.objects.get(collection=collection, docno=sorted(wanted)[0])
    assert first.body == "wanted: docno wins over id"
    broken = tmp_path / "broken.jsonl"
    broken.write_text('{"docno": "' + sorted(wanted)[0] + '", "text": oops}\n')
    with pytest.raises(ImportFailed) as failed:  # a wanted line is read, and its problem named
        documents_import(collection=collection, path=broken, pooled_only=True)
    assert failed.value.problems[0].line == 1
