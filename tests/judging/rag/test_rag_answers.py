"""RAG runs imported in TREC's 2024 and 2025 formats, all or nothing, every problem named by file, line and field;
their references become the run's ranking."""

from __future__ import annotations

import json

import pytest
from django.core.exceptions import ValidationError

from judging.models import Document, Run, Topic
from judging.rag.core.answers import read_answers
from judging.rag.models.answers import Answer
from judging.rag.services.answers import answer_runs_import
from tests.factories import make_collection, make_user
from tests.rag_files import rag24, rag25

pytestmark = pytest.mark.django_db


def test_a_2024_line_is_read_with_citations_by_position():
    answers, problems = read_answers([rag24("r", "1", ["d1", "d2"], [("First.", [0]), ("Second.", [1, 0])])], "a")
    assert problems == []
    assert answers[0].sentences == (("First.", (0,)), ("Second.", (1, 0)))
    assert (answers[0].format, answers[0].words) == ("rag24", 2)


def test_a_2025_line_cites_by_position_or_by_segment_id():
    line = rag25("r", "7", ["d1", "d2"], [("One.", ["d2", 0])])
    answers, problems = read_answers([line], "a")
    assert problems == []
    assert answers[0].topic == "7" and answers[0].sentences == (("One.", (1, 0)),)
    assert answers[0].metadata == {"team_id": "team", "type": "automatic"}


def test_words_are_counted_after_nfkc_normalisation():
    # U+FB01 (the ligature fi) and an ideographic space: NFKC makes "fi" and a plain space of them
    answers, _ = read_answers([rag24("r", "1", ["d1"], [("ﬁne\u3000words", [0])])], "a")
    assert answers[0].words == 2


BAD_LINES = [
    ("{not json", "(line)", "not valid JSON"),
    ("[1, 2]", "(line)", "expected a JSON object"),
    ("[" * 5000 + "]" * 5000, "(line)", "nested more than"),  # Python's reader: a RecursionError
    (rag24("r", "1", ["d1"], [("nul \u0000 here", [0])]), "answer", "NUL character"),
    (rag24("r", "1", ["d1"], [("half \ud800 a pair", [0])]), "answer", "lone surrogate"),
    (rag24("r" * 500, "1", ["d1"], [("x", [0])]), "run_id", "500 characters long; at most 200"),
    (rag24("r", "1", ["d" * 300], [("x", [0])]), "references[0]", "at most 200"),
    (rag24("r\u200bun", "1", ["d1"], [("x", [0])]), "run_id", "invisible or control character"),
    (rag24("r", "1", [f"d{i}" for i in range(21)], [("x", [0])]), "references", "21 references"),
    (rag24("r", "1", ["d1", "d1"], [("x", [0])]), "references", "listed more than once: d1"),
    (rag24("r", "1", ["d1"], [("x", [1])]), "answer[0].citations", "is not a 0-based position"),
    (rag24("r", "1", ["d1"], [("x", ["d1"])]), "answer[0].citations", "is not a 0-based position"),
    (rag24("r", "1", ["d1"], [("word " * 401, [0])]), "answer", "401 words"),
    (rag24("r", "", ["d1"], [("x", [0])]), "topic_id", "missing"),
    (rag24("r", "1", ["d1"], [("x", [0])], response_length="long"), "response_length", "not a whole number"),
    (rag25("r", "1", ["d1"], [("x", ["d9"])]), "answer[0].citations", "a position in references or a segment id"),
    (json.dumps({"metadata": {"narrative_id": "1"}, "references": [], "answer": []}), "metadata.run_id", "missing"),
]


@pytest.mark.parametrize(("line", "field", "words"), BAD_LINES)
def test_each_bad_line_is_named_by_file_line_and_field(line, field, words):
    good = rag24("r", "1", ["d1"], [("fine", [0])])
    _, problems = read_answers([good, line], "runs.jsonl")
    assert [(p.file, p.line, p.field) for p in problems] == [("runs.jsonl", 2, field)]
    assert words in problems[0].message


def test_a_line_over_the_record_limit_is_a_problem_and_a_stream_never_holds_it_whole():
    import io

    good = rag24("r", "1", ["d1"], [("fine", [0])])
    huge = rag24("r", "2", ["d1"], [("word " * 300_000, [0])])  # 1.5 MB on one line
    for lines in ([good, huge], io.BytesIO(f"{good}\n{huge}\n".encode())):
        answers, problems = read_answers(lines, "runs.jsonl", max_line_bytes=1 << 20)
        assert [a.line for a in answers] == [1]
        assert [(p.line, p.field) for p in problems] == [(2, "(line)")]
        assert "longer than 1,048,576 bytes" in problems[0].message


def test_an_import_of_a_bad_line_through_the_api_and_the_page_is_a_400_naming_it_and_saves_nothing(client):
    from django.core.files.uploadedfile import SimpleUploadedFile

    collection = make_collection(topics=2, documents=6, runs=0)
    client.force_login(make_user("admin"))
    nested = "[" * 5000 + "]" * 5000
    for line in (nested, rag24("r", "1", ["d1"], [("nul \u0000", [0])]), rag24("r" * 500, "1", ["d1"], [("x", [0])])):
        body = f"{rag24('ok', '1', ['d1'], [('fine', [0])])}\n{line}\n".encode()
        answer = client.post(f"/api/collections/{collection.id}/answer-runs/",
                             {"file": SimpleUploadedFile("runs.jsonl", body)})  # fmt: skip
        assert answer.status_code == 400, answer.content[:300]
        assert "runs.jsonl, line 2" in answer.content.decode()
        page = client.post(f"/judging/collections/{collection.id}/answers/",
                           {"file": SimpleUploadedFile("runs.jsonl", body)})  # fmt: skip
        assert page.status_code == 400 and "runs.jsonl, line 2" in page.content.decode()
    assert not Answer.objects.filter(topic__collection=collection).exists()


def test_a_run_answering_a_topic_twice_is_a_problem_of_the_second_line():
    line = rag24("r", "1", ["d1"], [("x", [0])])
    _, problems = read_answers([line, line], "a")
    assert [(p.line, p.field) for p in problems] == [(2, "topic")]


def test_an_import_stores_answers_and_their_references_as_the_runs_ranking():
    collection = make_collection(topics=2, documents=6, runs=0)
    lines = [rag24("rag-a", "1", ["d3", "d1"], [("A.", [0]), ("B.", [1])]),
             rag24("rag-a", "2", ["d2"], [("C.", [0])]), rag24("rag-b", "1", ["d1"], [("D.", [0])])]  # fmt: skip
    result = answer_runs_import(collection=collection, file="runs.jsonl", lines=lines)
    assert result["runs"] == {"rag-a": 2, "rag-b": 1}
    run = Run.objects.get(collection=collection, tag="rag-a")
    ranking = run.rankings.get(topic__number="1")
    docnos = dict(Document.objects.filter(collection=collection).values_list("id", "docno"))
    assert [docnos[d] for d in ranking.documents()] == ["d3", "d1"]  # the references' order, not docno order
    answer = Answer.objects.get(run=run, topic__number="1")
    assert [docnos[d] for d in answer.references] == ["d3", "d1"]
    assert answer.sentences == [{"text": "A.", "citations": [0]}, {"text": "B.", "citations": [1]}]
    assert answer.origin == {"file": "runs.jsonl", "line": 1, "format": "rag24"}


def test_a_file_with_one_bad_line_saves_nothing():
    collection = make_collection(topics=2, documents=6, runs=0)
    lines = [rag24("rag-a", "1", ["d1"], [("A.", [0])]), rag24("rag-a", "2", ["d1"], [("B.", [5])])]
    with pytest.raises(ValidationError) as refused:
        answer_runs_import(collection=collection, file="runs.jsonl", lines=lines)
    assert "runs.jsonl, line 2, answer[0].citations" in " ".join(refused.value.messages)
    assert not Answer.objects.exists() and not Run.objects.filter(collection=collection).exists()


def test_unknown_topics_and_segments_are_refused_in_one_line_or_made_as_placeholders():
    collection = make_collection(topics=1, documents=2, runs=0)
    lines = [rag24("rag-a", "1", ["d1", "new-seg"], [("A.", [1])]), rag24("rag-a", "9", ["d0"], [("B.", [0])])]
    with pytest.raises(ValidationError) as refused:
        answer_runs_import(collection=collection, file="f", lines=lines)
    assert refused.value.messages[0].startswith("these 2 answers name 1 topics and 1 segments this collection")
    answer_runs_import(collection=collection, file="f", lines=lines, create_missing=True)
    assert Topic.objects.get(collection=collection, number="9").extra == {"placeholder": True}
    assert Document.objects.get(collection=collection, docno="new-seg").extra == {"placeholder": True}


def test_importing_a_run_again_replaces_its_answers():
    collection = make_collection(topics=1, documents=3, runs=0)
    answer_runs_import(collection=collection, file="f", lines=[rag24("r", "1", ["d1"], [("old", [0])])])
    answer_runs_import(collection=collection, file="f", lines=[rag24("r", "1", ["d2"], [("new", [0])])])
    assert list(Answer.objects.values_list("sentences", flat=True)) == [[{"text": "new", "citations": [0]}]]
