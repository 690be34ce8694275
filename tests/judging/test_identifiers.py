"""One identifier policy (judging.core.identifiers): what looks the same is the same (NFKC), or is refused (invisible
and control characters, look-alike scripts mixed), with the file, line and field named; never a 500 or an
IntegrityError."""

from __future__ import annotations

import json
import unicodedata

import pytest
from django.core.exceptions import ValidationError

from judging import services
from judging.core.identifiers import identifier, identifier_problem
from judging.imports import services as imports
from judging.imports.core.problems import ImportFailed
from judging.models import Topic
from tests.factories import make_user

CAFE_NFC, CAFE_NFD = unicodedata.normalize("NFC", "café"), unicodedata.normalize("NFD", "café")


@pytest.mark.parametrize(
    ("typed", "one_form"),
    [(CAFE_NFD, CAFE_NFC), ("ａｌｉｃｅ", "alice"), ("ＤＯＣ－１", "DOC-1"), ("документ", "документ"), ("Ωmega", None)],
)
def test_spellings_that_look_the_same_have_one_form(typed, one_form):
    if one_form is None:
        assert identifier_problem(identifier(typed)) is not None  # Greek Ω beside Latin letters
    else:
        assert identifier(typed) == one_form and identifier_problem(one_form) is None


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("doc\u200b1", "ZERO WIDTH SPACE"),
        ("\u202edoc1", "RIGHT-TO-LEFT OVERRIDE"),
        ("doc\x1b[31m1", "U+001B"),
        ("p\u0430ypal", "mixes Cyrillic and Latin"),  # a Cyrillic а among Latin letters
        ("doc\ue000", "invisible or control"),
    ],
)
def test_invisible_control_and_mixed_script_identifiers_are_refused(text, reason):
    assert reason in identifier_problem(identifier(text))


def _write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.django_db
def test_one_topic_id_in_nfc_and_nfd_is_a_repeat_named_by_line(tmp_path):
    collection = services.collection_create(name="ids", max_grade=1)
    path = _write(tmp_path, "topics.tsv", f"{CAFE_NFC}\tfirst\n{CAFE_NFD}\tsecond\n")
    with pytest.raises(ImportFailed) as failure:
        imports.topics_import(collection=collection, path=path)
    problem = failure.value.problems[0]
    assert (problem.line, problem.field) == (2, "number") and "already appears on line 1" in problem.reason
    assert not Topic.objects.filter(collection=collection).exists()


@pytest.mark.django_db
def test_a_lone_surrogate_in_a_topics_jsonl_is_named_by_line_and_field(tmp_path):
    collection = services.collection_create(name="ids", max_grade=1)
    lines = [json.dumps({"id": "1", "title": "fine"}), '{"id": "2", "title": "bad \\ud800 escape"}']
    with pytest.raises(ImportFailed) as failure:
        imports.topics_import(collection=collection, path=_write(tmp_path, "topics.jsonl", "\n".join(lines) + "\n"))
    problem = failure.value.problems[0]
    assert (problem.line, problem.field) == (2, "title") and "U+D800" in problem.reason


@pytest.mark.django_db
def test_a_docno_with_a_zero_width_space_and_a_run_tag_of_mixed_scripts_are_refused(tmp_path):
    collection = services.collection_create(name="ids", max_grade=1)
    services.topics_create(collection=collection, topics=[{"number": "1", "title": "t"}])
    documents = _write(tmp_path, "docs.tsv", "d1\ttext\nd\u200b2\ttext\n")
    with pytest.raises(ImportFailed) as failure:
        imports.documents_import(collection=collection, path=documents)
    assert [(p.line, p.field) for p in failure.value.problems] == [(2, "docno")]
    assert _refused_run_line(tmp_path, "1 Q0 d1 1 1.0 r\u0430n") == [(1, "tag")]  # Cyrillic а in a Latin tag


@pytest.mark.django_db
def test_a_fullwidth_username_is_the_taken_one_and_the_page_says_so(client):
    services.user_create(username="alice", password="pw-for-tests-123", role="assessor")
    with pytest.raises(ValidationError, match="taken"):
        services.user_invite(username="ａｌｉｃｅ", role="assessor")
    client.force_login(make_user("admin"))
    page = client.post("/judging/people/", {"username": "ａｌｉｃｅ", "role": "assessor", "email": ""})
    assert page.status_code == 200 and "is taken" in page.content.decode()


@pytest.mark.django_db
@pytest.mark.parametrize("tag", ["../../etc/passwd", "runs/mine", "..", ".hidden", "a\\b"])
def test_a_run_tag_that_looks_like_a_path_is_refused(tmp_path, tag):
    assert _refused_run_line(tmp_path, f"1 Q0 d1 1 1.0 {tag}") == [(1, "tag")]


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("line", "reason"),
    [('{"id": 1e400, "title": "t"}', "too large"), ('{"id": "1", "id": "2", "title": "t"}', "appears twice")],
)
def test_a_json_number_too_large_or_a_repeated_key_is_refused(tmp_path, line, reason):
    collection = services.collection_create(name="json", max_grade=1)
    with pytest.raises(ImportFailed) as failure:
        imports.topics_import(collection=collection, path=_write(tmp_path, "topics.jsonl", line + "\n"))
    assert reason in failure.value.problems[0].reason and not Topic.objects.filter(collection=collection).exists()


@pytest.mark.django_db
def test_the_api_refuses_the_same_json_that_imports_do():
    from rest_framework.test import APIClient

    client = APIClient()
    client.force_authenticate(make_user("admin"))
    for body in ('{"name": "a", "name": "b"}', '{"name": "a", "max_grade": 1e400}'):
        response = client.generic("POST", "/api/collections/", body, content_type="application/json")
        assert response.status_code == 400 and "JSON parse error" in response.json()["error"]["message"]


@pytest.mark.django_db
@pytest.mark.parametrize("rank", [str(2**64 + 1), "-1", "1.5", "x"])
def test_a_rank_no_integer_column_holds_is_refused_naming_it(tmp_path, rank):
    assert _refused_run_line(tmp_path, f"1 Q0 d1 {rank} 1.0 r") == [(1, "rank")]


def _refused_run_line(tmp_path, line: str) -> list[tuple[int, str | None]]:
    """(line, field) of each problem a one-line run file raises, in a collection with topic 1 and document d1."""
    collection = services.collection_create(name="one-line", max_grade=1)
    services.topics_create(collection=collection, topics=[{"number": "1", "title": "t"}])
    services.documents_create(collection=collection, documents=[{"docno": "d1"}])
    with pytest.raises(ImportFailed) as failure:
        imports.runs_import(collection=collection, paths=[_write(tmp_path, "run.txt", line + "\n")])
    return [(p.line, p.field) for p in failure.value.problems]
