"""Every malformed file of the corpus is refused through the command and through the API: the refusal names the
file, the line and the field, nothing is written, nothing answers 5xx, and no job is left unfinished."""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import CommandError, call_command

from judging import services
from judging.jobs.models import Job, JobState
from judging.models import Document, Judgment, Ranking, Run, Topic
from tests.api_clients import api_as
from tests.factories import make_user
from tests.judging.malformed_inputs import CASES, Malformed

pytestmark = pytest.mark.django_db

COMMANDS = {"runs": "import_runs", "qrels": "import_qrels", "topics": "import_topics", "documents": "import_documents"}


@pytest.fixture
def collection():
    collection = services.collection_create(name="malformed", max_grade=2, relevance_threshold=1)
    services.topics_create(collection=collection, topics=[{"number": n, "title": f"t{n}"} for n in ("401", "402")])
    services.documents_create(collection=collection, documents=[{"docno": f"D{i}", "body": "x"} for i in range(6)])
    return collection


def rows() -> tuple[int, ...]:
    return tuple(model.objects.count() for model in (Topic, Document, Run, Ranking, Judgment))


def where(case: Malformed) -> str:
    """How the refusal names the place: `file:line: field 'name':` (the file alone for line 0)."""
    place = f"{case.name}:{case.line}" if case.line else case.name
    return place + (f": field '{case.field}'" if case.field else ": ")


def test_the_corpus_covers_every_kind_with_at_least_fifteen_cases():
    kinds = [case.kind for case in CASES]
    assert len(CASES) >= 58 and all(kinds.count(kind) >= 15 for kind in COMMANDS)


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_the_import_command_refuses_naming_file_line_and_field(case, collection, tmp_path):
    path = tmp_path / case.name
    path.write_bytes(case.content)
    before = rows()
    with pytest.raises(CommandError) as refusal:
        call_command(COMMANDS[case.kind], str(collection.id), str(path))
    message = str(refusal.value).replace(str(path), case.name)
    assert where(case) in message, message
    assert rows() == before


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_the_import_api_refuses_naming_file_line_and_field(case, collection, django_capture_on_commit_callbacks):
    client = api_as(make_user("admin"))
    before = rows()
    upload = SimpleUploadedFile(case.name, case.content)
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(
            f"/api/collections/{collection.id}/imports/", {"kind": case.kind, "file": upload}, format="multipart"
        )
    if not case.content:  # refused before any job: the upload itself names the field
        assert response.status_code == 400 and "file" in response.json()["error"]["fields"]
        assert not Job.objects.exists()
        return
    assert response.status_code == 202, response.content
    job = Job.objects.get(pk=response.json()["id"])
    assert job.state == JobState.FAILED, (job.state, job.message)
    problems = [(p["file"], p["line"], p["field"]) for p in job.result["problems"]]
    assert (case.name, case.line, case.field) in problems, job.result["problems"]
    assert rows() == before
