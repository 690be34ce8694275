"""Standard collections by id (#51, item 1): an ir_datasets id in either spelling imports the dataset's topics,
qrels (an imported source) and documents (none, pooled or all), from files the tests write and register with
ir_datasets' own local classes, with networking blocked; a file ir_datasets would download is named, with where to
put it, and nothing is sent."""

from __future__ import annotations

import itertools
import socket

import pytest
from django.core.exceptions import ValidationError
from django.core.management import call_command

from judging.datasets.core import dataset_id
from judging.datasets.services import dataset_import
from judging.models import Document, Judgment, Topic
from judging.sources.models import LabelSource
from tests.factories import make_collection

pytestmark = pytest.mark.django_db
_names = itertools.count()


@pytest.fixture(autouse=True)
def no_network(monkeypatch):
    def refused(*args, **kwargs):
        raise OSError("networking is removed in this test")

    monkeypatch.setattr(socket.socket, "connect", refused)
    monkeypatch.setattr(socket, "create_connection", refused)


def _registered(tmp_path) -> str:
    import ir_datasets

    (tmp_path / "docs.tsv").write_text("D1\tpython sorting lists\nD2\treading files line by line\nD3\tweather\n")
    (tmp_path / "queries.tsv").write_text("1\thow to sort a list\n2\tread a file\n")
    (tmp_path / "qrels").write_text("1 0 D1 2\n1 0 D3 0\n2 0 D2 1\n2 0 D9 -1\n")
    dataset = ir_datasets.create_dataset(docs_tsv=str(tmp_path / "docs.tsv"), queries_tsv=str(tmp_path /
                                         "queries.tsv"), qrels_trec=str(tmp_path / "qrels"))  # fmt: skip
    name = f"workbench-tests/tiny-{next(_names)}"
    ir_datasets.registry.register(name, dataset)
    return name


def test_both_spellings_of_an_id_are_taken_and_nonsense_is_refused():
    assert dataset_id("irds:msmarco-passage/trec-dl-2019/judged") == "msmarco-passage/trec-dl-2019/judged"
    assert dataset_id(" antique/test ") == "antique/test"
    with pytest.raises(ValueError):
        dataset_id("not an id; rm -rf /")


def test_a_dataset_imports_its_topics_qrels_and_only_the_pooled_documents(tmp_path):
    collection = make_collection(topics=0, documents=0, runs=0, max_grade=2)
    name = _registered(tmp_path)
    result = dataset_import(collection=collection, dataset=f"irds:{name}", documents="pooled")
    assert result["topics"]["created"] == 2
    assert Topic.objects.get(collection=collection, number="1").title == "how to sort a list"
    labels = dict(Judgment.objects.filter(topic__collection=collection).values_list("document__docno", "grade"))
    assert labels == {"D1": 2, "D3": 0, "D2": 1, "D9": 0}  # a negative grade counts as 0
    source = LabelSource.objects.get(collection=collection, account__username__contains="irds-workbench-tests")
    assert source.kind == "imported"
    assert result["documents"]["passed_over"] == 3  # nothing is pooled yet: the qrels' documents are placeholders
    assert Document.objects.get(collection=collection, docno="D1").body == ""
    dataset_import(collection=collection, dataset=name, documents="all")
    assert Document.objects.get(collection=collection, docno="D1").body == "python sorting lists"


def test_a_file_ir_datasets_would_download_is_named_and_nothing_is_sent(tmp_path):
    import ir_datasets
    from ir_datasets.formats import TsvDocs
    from ir_datasets.util import Download, RequestsDownload

    cached = tmp_path / "home" / "remote-docs.tsv"
    name = f"workbench-tests/remote-{next(_names)}"
    remote = Download([RequestsDownload("https://example.org/docs.tsv")], cache_path=str(cached))
    ir_datasets.registry.register(name, ir_datasets.datasets.base.Dataset(TsvDocs(remote)))
    collection = make_collection(topics=0, documents=0, runs=0)
    with pytest.raises(ValidationError) as refused:
        dataset_import(collection=collection, dataset=name, documents="all")
    assert str(cached) in refused.value.message_dict["dataset"][0] and "WORKBENCH_DATASETS_DOWNLOAD" in str(
        refused.value
    )
    with pytest.raises(ValidationError, match="has no dataset"):
        dataset_import(collection=collection, dataset="no-such/dataset")


def test_the_command_imports_by_id(tmp_path, capsys):
    collection = make_collection(topics=0, documents=0, runs=0, max_grade=2)
    call_command("import_dataset", str(collection.id), _registered(tmp_path), "--documents", "all")
    assert "topics 2 new" in capsys.readouterr().out
    assert Document.objects.filter(collection=collection).count() == 4


def test_the_import_page_and_the_api_start_it_as_a_job(client, tmp_path, django_capture_on_commit_callbacks):
    from django.urls import reverse

    from judging.jobs.models import Job
    from tests.api_clients import role_clients
    from tests.factories import make_user

    collection = make_collection(topics=0, documents=0, runs=0, max_grade=2)
    name = _registered(tmp_path)
    client.force_login(make_user("admin"))
    assert "A standard collection by id" in client.get(reverse("judging:import", args=[collection.id])).content.decode()
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(reverse("judging:dataset_import", args=[collection.id]),
                               {"dataset": f"irds:{name}", "documents": "all"})  # fmt: skip
    job = Job.objects.get(pk=int(response.url.rstrip("/").split("/")[-1]))
    assert job.state == "done" and job.result["topics"]["created"] == 2, job.error
    answer = role_clients()["admin"].post(f"/api/collections/{collection.id}/datasets/", {"dataset": "x y"},
                                          format="json")  # fmt: skip
    assert answer.status_code == 400 and "dataset" in answer.content.decode()


def _pooled_without_text(tmp_path):
    """A collection made from the dataset's id alone, its pool built from a run, no document text imported."""
    from judging import services

    name = _registered(tmp_path)
    collection = services.collection_create(name=f"irds-{next(_names)}", max_grade=2, ir_datasets_id=f"irds:{name}")
    dataset_import(collection=collection, dataset=collection.ir_datasets_id)
    services.run_create(collection=collection, tag="r", scores={"1": {"D1": 2.0, "D3": 1.0}, "2": {"D2": 1.0}})
    services.pool_build_depth(collection=collection, depth=2)
    return collection, name


def test_a_collection_takes_an_ir_datasets_id_in_either_spelling_and_refuses_nonsense(tmp_path):
    from judging import services

    collection, name = _pooled_without_text(tmp_path)
    assert collection.ir_datasets_id == name  # the bare id, whichever spelling was typed
    with pytest.raises(ValidationError) as refused:
        services.collection_settings_update(collection=collection, ir_datasets_id="not an id; rm -rf /")
    assert "ir_datasets_id" in refused.value.message_dict


def test_a_pooled_document_without_text_is_read_from_the_docstore_when_an_assessor_opens_it(tmp_path, client):
    from django.urls import reverse

    from judging import services
    from tests.factories import make_user

    collection, _ = _pooled_without_text(tmp_path)
    assert Document.objects.get(collection=collection, docno="D1").body == ""
    assessor = make_user("assessor")
    topic = collection.topics.get(number="1")
    services.assignment_create(assessor=assessor, topic=topic)
    client.force_login(assessor)
    d1 = Document.objects.get(collection=collection, docno="D1")
    page = client.get(reverse("judging:judge_document", args=[topic.id, d1.id]))
    assert "python sorting lists" in page.content.decode()
    d1.refresh_from_db()
    assert (d1.body, d1.extra) == ("python sorting lists", {})  # kept: the store is read once per document


def test_a_document_the_store_cannot_give_says_why_on_the_page(tmp_path, client):
    from django.urls import reverse

    from judging import services
    from tests.factories import make_user

    collection, _ = _pooled_without_text(tmp_path)
    (tmp_path / "docs.tsv").unlink()  # the corpus is gone and its store was never built
    assessor = make_user("assessor")
    topic = collection.topics.get(number="1")
    services.assignment_create(assessor=assessor, topic=topic)
    client.force_login(assessor)
    d3 = Document.objects.get(collection=collection, docno="D3")
    page = client.get(reverse("judging:judge_document", args=[topic.id, d3.id])).content.decode()
    assert "This document has no text: " in page and "docs.tsv" in page


def _remote(tmp_path, *files: str) -> str:
    """A dataset whose parts are each one file ir_datasets would download (none is on disk)."""
    import ir_datasets
    from ir_datasets.formats import TrecQrels, TsvDocs, TsvQueries
    from ir_datasets.util import Download, RequestsDownload

    def remote(file: str):
        return Download([RequestsDownload(f"https://example.org/{file}")], cache_path=str(tmp_path / "home" / file))

    queries, qrels, docs = (remote(file) for file in files)
    name = f"workbench-tests/remote-{next(_names)}"
    ir_datasets.registry.register(
        name, ir_datasets.datasets.base.Dataset(TsvQueries(queries), TrecQrels(qrels, {}), TsvDocs(docs))
    )
    return name


def test_every_missing_file_is_named_at_once_with_its_source_and_no_collection_is_made(tmp_path, client):
    from judging.models import Collection
    from tests.factories import make_user
    from tests.judging.test_setup_pages import FORM

    name = _remote(tmp_path, "queries.tsv", "qrels.txt", "docs.tsv")
    collection = make_collection(topics=0, documents=0, runs=0)
    with pytest.raises(ValidationError) as refused:
        dataset_import(collection=collection, dataset=name, documents="all")
    message = refused.value.message_dict["dataset"][0]
    for file in ("queries.tsv", "qrels.txt", "docs.tsv"):
        assert str(tmp_path / "home" / file) in message and f"https://example.org/{file}" in message
    client.force_login(make_user("admin"))
    before = Collection.objects.count()
    page = client.post("/judging/collections/new/", {**FORM, "name": "from irds", "ir_datasets_id": f"irds:{name}"})
    text = page.content.decode()
    assert page.status_code == 200 and "2 files are missing" in text  # a new collection imports topics and qrels
    assert "https://example.org/queries.tsv" in text and "https://example.org/qrels.txt" in text
    assert Collection.objects.count() == before  # nothing made, empty


def test_an_html_page_saved_in_place_of_an_archive_is_named_as_not_an_archive(tmp_path):
    import ir_datasets
    from ir_datasets.formats import TsvQueries
    from ir_datasets.util import Download, GzipExtract, RequestsDownload

    saved = tmp_path / "home" / "npl.tar.gz"
    saved.parent.mkdir(parents=True)
    saved.write_text("<!doctype html><html><body>Moved</body></html>")
    download = Download([RequestsDownload("https://example.org/npl.tar.gz")], cache_path=str(saved))
    name = f"workbench-tests/html-{next(_names)}"
    ir_datasets.registry.register(name, ir_datasets.datasets.base.Dataset(TsvQueries(GzipExtract(download))))
    with pytest.raises(ValidationError) as refused:
        dataset_import(collection=make_collection(topics=0, documents=0, runs=0), dataset=name)
    message = refused.value.message_dict["dataset"][0]
    assert str(saved) in message and "not a valid archive" in message


def test_the_summary_counts_placeholders_given_their_text(tmp_path):
    collection = make_collection(topics=0, documents=0, runs=0, max_grade=2)
    name = _registered(tmp_path)
    dataset_import(collection=collection, dataset=name)  # the qrels' documents made as placeholders
    result = dataset_import(collection=collection, dataset=name, documents="all")
    assert result["documents"]["filled"] == 3 and result["documents"]["created"] == 0
