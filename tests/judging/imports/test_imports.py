"""Imports: every format parsed, every problem named by file, line and field, all or nothing, idempotent."""

from __future__ import annotations

import io

import numpy as np
import pytest
from django.core.management import CommandError, call_command

from evaluation.models import CollectionState, TopicState
from judging import services
from judging.imports import services as imports
from judging.imports.core.problems import ImportFailed
from judging.models import Document, Judgment, Ranking, Run, Topic

pytestmark = pytest.mark.django_db


def write(tmp_path, name, text: str | bytes):
    path = tmp_path / name
    path.write_bytes(text if isinstance(text, bytes) else text.encode())
    return path


@pytest.fixture
def collection():
    collection = services.collection_create(name="imports", max_grade=2, relevance_threshold=1)
    services.topics_create(collection=collection, topics=[{"number": n, "title": f"t{n}"} for n in ("401", "402")])
    services.documents_create(collection=collection, documents=[{"docno": f"D{i}"} for i in range(6)])
    return collection


def refused(action) -> ImportFailed:
    with pytest.raises(ImportFailed) as caught:
        action()
    return caught.value


TREC_TOPICS = """<top>
<num> Number: 301
<title> International Organized Crime
<desc> Description:
Identify organizations that participate
in international criminal activity.
<narr> Narrative:
A relevant document must name the organization.
</top>

<top>
<num> Number: 302 </num>
<title> Poliomyelitis and Post-Polio </title>
</top>
"""


def test_trec_topic_files_give_number_title_description_and_narrative(tmp_path, collection):
    report = imports.topics_import(collection=collection, path=write(tmp_path, "topics.301", TREC_TOPICS))
    assert (report.created, report.updated) == (2, 0)
    topic = Topic.objects.get(collection=collection, number="301")
    assert topic.title == "International Organized Crime"
    assert topic.description == "Identify organizations that participate in international criminal activity."
    assert topic.narrative == "A relevant document must name the organization."
    assert Topic.objects.get(collection=collection, number="302").title == "Poliomyelitis and Post-Polio"


def test_tsv_and_jsonl_topics_are_read_and_reimporting_changes_nothing(tmp_path, collection):
    tsv = write(tmp_path, "topics.tsv", "501\twhat is a qrel\n502\thow deep is a pool\n")
    jsonl = write(tmp_path, "topics.jsonl", '{"qid": "601", "query": "gain", "description": "d", "lang": "en"}\n')
    assert imports.topics_import(collection=collection, path=tsv).created == 2
    assert imports.topics_import(collection=collection, path=jsonl).created == 1
    again = imports.topics_import(collection=collection, path=tsv)
    assert (again.created, again.updated, again.unchanged) == (0, 0, 2)
    topic = Topic.objects.get(collection=collection, number="601")
    assert (topic.title, topic.description, topic.extra) == ("gain", "d", {"lang": "en"})


@pytest.mark.parametrize(
    ("name", "text", "line", "field", "reason"),
    [
        ("t.tsv", "1\tok\n2\ttoo\tmany\n", 2, None, "expected 2 tab-separated columns"),
        ("t.tsv", "1\tok\n1\tagain\n", 2, "number", "already appears on line 1"),
        ("t.jsonl", '{"qid": "1", "query": "q"}\n{"qid": "2", "query": \n', 2, None, "not valid JSON"),
        ("t.jsonl", '{"query": "q"}\n', 1, "number", "missing"),
        ("t.trec", "<top>\n<num> Number: 7\n</top>\n", 1, "title", "has no <title>"),
        ("t.trec", "<top>\n<num> Number: 7\n<title> x\n", 1, None, "not closed at the end of the file"),
        ("t.tsv", b"1\tok\n2\t\xff\xfe\n", 2, None, "not valid UTF-8"),
        ("t.tsv", "", 0, None, "the file is empty"),
    ],
)
def test_malformed_topic_files_are_refused_naming_file_line_and_field(
    tmp_path, collection, name, text, line, field, reason
):
    path = write(tmp_path, name, text)
    failure = refused(lambda: imports.topics_import(collection=collection, path=path))
    problem = failure.problems[0]
    assert (problem.file, problem.line, problem.field) == (str(path), line, field)
    assert reason in problem.reason
    assert Topic.objects.filter(collection=collection).count() == 2  # only the fixture's


DOCUMENTS = {
    "docs.jsonl": '{"docno": "N1", "title": "One", "text": "first <b>body</b>", "lang": "en"}\n'
    '{"id": "N2", "contents": "second"}\n',
    "docs.sgml": "<DOC>\n<DOCNO> N1 </DOCNO>\n<HEADLINE>One</HEADLINE>\n<TEXT>\nfirst <b>body</b>\n</TEXT>\n</DOC>\n"
    "<DOC>\n<DOCNO>N2</DOCNO>\n<TEXT>second</TEXT>\n</DOC>\n",
    "docs.tsv": "N1\tOne\tfirst <b>body</b>\nN2\tsecond\n",
}


@pytest.mark.parametrize("name", sorted(DOCUMENTS))
def test_documents_are_read_from_jsonl_sgml_and_tsv(tmp_path, collection, name):
    report = imports.documents_import(collection=collection, path=write(tmp_path, name, DOCUMENTS[name]))
    assert report.created == 2
    first = Document.objects.get(collection=collection, docno="N1")
    assert first.title == "One"
    assert "first" in first.body and "body" in first.body
    assert Document.objects.get(collection=collection, docno="N2").body.strip() == "second"


def test_a_bad_document_late_in_a_large_file_rolls_back_the_batches_already_written(tmp_path, collection, monkeypatch):
    monkeypatch.setattr(imports, "DOCUMENT_BATCH", 10)
    lines = [f'{{"docno": "B{i}", "text": "x"}}' for i in range(95)] + ['{"text": "no docno"}']
    path = write(tmp_path, "big.jsonl", "\n".join(lines) + "\n")
    failure = refused(lambda: imports.documents_import(collection=collection, path=path))
    assert (failure.problems[0].line, failure.problems[0].field) == (96, "docno")
    assert not Document.objects.filter(collection=collection, docno__startswith="B").exists()
    report = imports.documents_import(collection=collection, path=path, skip_invalid=True)
    assert (report.created, report.skipped_count) == (95, 1)


def test_an_unclosed_sgml_document_and_a_repeated_docno_are_problems(tmp_path, collection):
    path = write(
        tmp_path,
        "d.sgml",
        "<DOC>\n<DOCNO>A</DOCNO>\n</DOC>\n<DOC>\n<DOCNO>A</DOCNO>\n</DOC>\n<DOC>\n<DOCNO>B</DOCNO>\n",
    )
    failure = refused(lambda: imports.documents_import(collection=collection, path=path))
    assert [(p.line, p.field) for p in failure.problems] == [(4, "docno"), (7, None)]


def run_text(lines):
    return "".join(f"{t} Q0 {d} {r} {s} {tag}\n" for t, d, r, s, tag in lines)


def test_runs_are_stored_in_trec_eval_order_and_reimporting_is_idempotent(tmp_path, collection):
    path = write(
        tmp_path,
        "run.txt",
        run_text(
            [
                ("401", "D1", 1, 2.0, "sys"),
                ("401", "D2", 9, 2.0, "sys"),
                ("401", "D0", 3, 5.5, "sys"),
                ("402", "D3", 1, -1e1, "sys"),
            ]
        ),
    )
    report = imports.runs_import(collection=collection, paths=[path])
    assert report.created == 1
    ranking = Ranking.objects.get(run__tag="sys", topic__number="401")
    docnos = dict(Document.objects.filter(collection=collection).values_list("id", "docno"))
    assert [docnos[i] for i in ranking.documents().tolist()] == ["D0", "D2", "D1"]  # score, then docno descending
    assert np.array_equal(ranking.score_array(), [5.5, 2.0, 2.0])
    assert TopicState.objects.filter(topic__collection=collection, dirty=True).count() == 2
    again = imports.runs_import(collection=collection, paths=[path])
    assert (again.created, again.updated, again.unchanged) == (0, 0, 1)
    changed = write(tmp_path, "run.txt", run_text([("401", "D4", 1, 1.0, "sys")]))
    assert imports.runs_import(collection=collection, paths=[changed]).updated == 1
    assert list(Ranking.objects.filter(run__tag="sys").values_list("topic__number", flat=True)) == ["401"]


@pytest.mark.parametrize(
    ("text", "line", "field", "reason"),
    [
        ("401 Q0 D1 1 1.0 sys\n401 Q0 D2 2 sys\n", 2, None, "expected 6 columns"),
        ("401 Q0 D1 1 high sys\n", 1, "score", "expected a number"),
        ("401 Q0 D1 1 nan sys\n", 1, "score", "must be finite"),
        ("499 Q0 D1 1 1.0 sys\n", 1, "qid", "topic '499' is not in the collection"),
        ("401 Q0 D1 1 1.0 sys\n401 Q0 X9 2 0.5 sys\n", 2, "docno", "document 'X9' is not in the collection"),
        ("401 Q0 D1 1 1.0 sys\n401 Q0 D1 2 0.5 sys\n", 2, "docno", "already ranked for topic '401' on line 1"),
        ("401 Q0 D1 1 1.0 sys\n401 Q0 D2 2 " + "9" * 10_000 + " sys\n", 2, None, "line longer than"),
        (b"401 Q0 D1 1 1.0 sys\n401 Q0 D\xe92 2 0.5 sys\n", 2, None, "not valid UTF-8"),
        ("", 0, None, "the file is empty"),
    ],
)
def test_malformed_run_files_are_refused_naming_file_line_and_field(tmp_path, collection, text, line, field, reason):
    path = write(tmp_path, "bad.run", text)
    failure = refused(lambda: imports.runs_import(collection=collection, paths=[path], names=["upload.run"]))
    problems = failure.problems
    if reason.endswith("is not in the collection"):  # one line first says what the lines below have in common
        assert problems[0].line == 0 and problems[0].reason.startswith("this line names 1 ")
        problems = problems[1:]
    problem = problems[0]
    assert (problem.file, problem.line, problem.field) == ("upload.run", line, field)
    assert reason in problem.reason
    assert not Run.objects.filter(collection=collection).exists()


def test_only_the_first_hundred_problems_are_listed_but_all_are_counted(tmp_path, collection):
    path = write(tmp_path, "bad.run", "".join(f"401 Q0 D1 {i} x sys\n" for i in range(150)))
    failure = refused(lambda: imports.runs_import(collection=collection, paths=[path]))
    assert (failure.count, len(failure.problems)) == (150, 100)
    assert "and 50 more" in str(failure)


def test_skip_invalid_imports_the_valid_lines_and_reports_the_others(tmp_path, collection):
    path = write(tmp_path, "mixed.run", "401 Q0 D1 1 1.0 sys\n401 Q0 X9 2 0.5 sys\n402 Q0 D2 1 3 sys\n")
    report = imports.runs_import(collection=collection, paths=[path], skip_invalid=True)
    assert (report.created, report.skipped_count, report.skipped[0].line) == (1, 1, 2)
    assert Ranking.objects.filter(run__tag="sys").count() == 2


def test_the_same_run_tag_in_two_files_is_a_problem(tmp_path, collection):
    first = write(tmp_path, "a.run", "401 Q0 D1 1 1.0 sys\n")
    second = write(tmp_path, "b.run", "402 Q0 D1 1 1.0 sys\n")
    failure = refused(lambda: imports.runs_import(collection=collection, paths=[first, second]))
    assert (failure.problems[0].file, failure.problems[0].field) == (str(second), "tag")


def test_comments_and_columns_after_the_run_tag_are_passed_over_as_trec_eval_10_does(tmp_path, collection):
    path = write(tmp_path, "a.run", "# system X, 2026\n401 Q0 D1 1 2.0 sys note\n401 Q0 D2 2 1.0 sys\n")
    assert imports.runs_import(collection=collection, paths=[path]).created == 1
    ranking = Ranking.objects.get(run__tag="sys", topic__number="401")
    docnos = dict(Document.objects.values_list("id", "docno"))
    assert [docnos[i] for i in ranking.documents().tolist()] == ["D1", "D2"]


def test_qrels_become_judgments_per_assessor_and_mark_their_topics_changed(tmp_path, collection):
    path = write(tmp_path, "qrels", "401 0 D1 2 nist\n401 0 D2 0 nist\n402 0 D3 1\n")
    version = CollectionState.objects.filter(collection=collection).values_list("qrels_version", flat=True).first() or 0
    report = imports.qrels_import(collection=collection, path=path, assessor="seed")
    assert report.created == 3
    grades = set(Judgment.objects.values_list("assessor__username", "topic__number", "document__docno", "grade"))
    assert grades == {("qrels:nist", "401", "D1", 2), ("qrels:nist", "401", "D2", 0), ("qrels:seed", "402", "D3", 1)}
    assert CollectionState.objects.get(collection=collection).qrels_version == version + 1
    assert TopicState.objects.filter(topic__collection=collection, dirty=True).count() == 2
    again = imports.qrels_import(collection=collection, path=path, assessor="seed")
    assert (again.created, again.updated, again.unchanged) == (0, 0, 3)
    assert CollectionState.objects.get(collection=collection).qrels_version == version + 1


@pytest.mark.parametrize(
    ("text", "line", "field", "reason"),
    [
        ("401 0 D1\n", 1, None, "expected 4 columns"),
        ("401 0 D1 yes\n", 1, "grade", "expected an integer"),
        ("401 0 D1 3\n", 1, "grade", "outside the collection's scale 0..2"),
        ("401 0 D1 -1\n", 1, "grade", "outside the collection's scale"),
        ("401 0 D1 1\n401 0 D1 2\n", 2, "docno", "judged again by the same assessor (first on line 1)"),
        ("403 0 D1 1\n", 1, "qid", "topic '403' is not in the collection"),
    ],
)
def test_malformed_qrels_are_refused_and_import_nothing(tmp_path, collection, text, line, field, reason):
    path = write(tmp_path, "qrels", text)
    failure = refused(lambda: imports.qrels_import(collection=collection, path=path))
    problems = failure.problems
    if reason.endswith("is not in the collection"):  # one line first says what the lines below have in common
        assert problems[0].line == 0 and problems[0].reason.startswith("this line names 1 ")
        problems = problems[1:]
    problem = problems[0]
    assert (problem.line, problem.field) == (line, field)
    assert reason in problem.reason
    assert not Judgment.objects.exists()


def test_import_commands_show_progress_and_list_problems(tmp_path, collection):
    good = write(tmp_path, "good.run", "401 Q0 D1 1 1.0 sys\n")
    out, err = io.StringIO(), io.StringIO()
    call_command("import_runs", collection.name, str(good), stdout=out, stderr=err)
    assert "runs: 1 created" in out.getvalue()
    assert "100%" in err.getvalue()
    bad = write(tmp_path, "bad.run", "401 Q0 D1 1 1.0 sys\n401 Q0 D9 2 0.5 sys\n")
    with pytest.raises(CommandError, match=r"bad\.run:2: field 'docno': document 'D9' is not in the collection"):
        call_command("import_runs", str(collection.id), str(bad), stdout=io.StringIO(), stderr=io.StringIO())


def test_a_qrels_assessor_column_never_writes_under_a_live_account_unless_mapped(tmp_path, collection):
    from django.contrib.auth import get_user_model

    admin = get_user_model().objects.create_user(username="admin", password="x")
    path = write(tmp_path, "qrels", "401 0 D1 2 admin\n401 0 D2 1 nist\n")
    imports.qrels_import(collection=collection, path=path)
    assert not Judgment.objects.filter(assessor=admin).exists()
    imported = get_user_model().objects.get(username="qrels:admin")
    assert not imported.is_active and not imported.has_usable_password()
    imports.qrels_import(collection=collection, path=path, assessor_map={"admin": admin})
    assert list(Judgment.objects.filter(assessor=admin).values_list("document__docno", "grade")) == [("D1", 2)]


def test_nfc_and_nfd_spellings_of_a_docno_name_one_document(tmp_path, collection):
    import unicodedata

    nfc, nfd = unicodedata.normalize("NFC", "café"), unicodedata.normalize("NFD", "café")
    assert nfc != nfd
    imports.documents_import(collection=collection, path=write(tmp_path, "d.tsv", f"{nfd}\tsome text\n"))
    assert Document.objects.filter(collection=collection, docno=nfc).exists()
    run = write(tmp_path, "r.run", f"401 Q0 {nfc} 1 2.0 sys\n402 Q0 {nfd} 1 2.0 sys\n")
    assert imports.runs_import(collection=collection, paths=[run]).created == 1


def test_sgml_with_thousands_of_unclosed_tags_is_read_in_linear_time(tmp_path, collection):
    import time

    def seconds(unclosed: int) -> float:
        body = "<TEXT> word " * unclosed
        path = write(tmp_path, f"docs{unclosed}.sgml", f"<DOC>\n<DOCNO>D9</DOCNO>\n{body}\n</DOC>\n")
        started = time.perf_counter()
        imports.documents_import(collection=collection, path=path)
        return time.perf_counter() - started

    small, large = seconds(4_000), seconds(16_000)  # quadratic parsing took 13 s for 16k
    # A ratio, not a bound: four times the tags take about four times as long (quadratic parsing took sixteen).
    assert large < 8 * max(small, 0.01)


def test_a_huge_single_line_is_refused_without_holding_it_in_memory(tmp_path, collection):
    import tracemalloc

    path = tmp_path / "huge.run"
    with open(path, "wb") as out:
        out.write(b"401 Q0 D1 1 1.0 ")
        for _ in range(40):
            out.write(b"x" * (1 << 20))  # one 40 MB line
        out.write(b"\n")
    tracemalloc.start()
    failure = refused(lambda: imports.runs_import(collection=collection, paths=[path]))
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert "line longer than 10,000 bytes" in str(failure)
    assert peak < 4 << 20, f"peak {peak:,} bytes"


def test_a_file_with_more_topics_than_the_limit_is_refused(tmp_path, collection, settings):
    settings.WORKBENCH_LIMITS = {**settings.WORKBENCH_LIMITS, "topics_per_file": 3}
    path = write(tmp_path, "t.tsv", "".join(f"{n}\tquery {n}\n" for n in range(500, 505)))
    failure = refused(lambda: imports.topics_import(collection=collection, path=path))
    assert "more than 3 topics in one file" in str(failure) and failure.problems[0].line == 4
