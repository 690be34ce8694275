"""The import page: an upload becomes a Job run by a Celery task, whose page shows progress, the report or the
problems by line."""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from judging.models import Job, JobState, Run
from tests.factories import make_collection, make_user

pytestmark = pytest.mark.django_db


@pytest.fixture
def admin_client(client):
    client.force_login(make_user("admin"))
    return client


@pytest.fixture
def upload(admin_client, django_capture_on_commit_callbacks, tmp_path, settings):
    """Posts a run file to a new collection's import page, running the import task; returns (collection, job)."""
    settings.MEDIA_ROOT = tmp_path

    def post(text: str):
        collection = make_collection(runs=0)
        data = {"kind": "runs", "file": SimpleUploadedFile("my.run", text.encode())}
        with django_capture_on_commit_callbacks(execute=True):
            response = admin_client.post(reverse("judging:import", args=[collection.id]), data)
        assert response.status_code == 302
        return collection, Job.objects.get(pk=int(response.url.rstrip("/").split("/")[-1]))

    return post


def test_an_uploaded_run_is_imported_by_a_job_that_reports_what_it_did(admin_client, upload, tmp_path):
    collection, job = upload("1 Q0 d1 1 2.5 new\n2 Q0 d2 1 1.0 new\n")
    assert (job.state, job.result["created"], job.percent) == (JobState.DONE, 1, 100)
    assert Run.objects.filter(collection=collection, tag="new").exists()
    assert not list((tmp_path / "uploads").iterdir())  # the upload is removed once read
    page = admin_client.get(reverse("judging:job", args=[job.id]))
    assert b'value="100"' in page.content and b"Created: 1" in page.content


def test_a_refused_upload_fails_its_job_and_the_page_lists_each_problem_by_line(admin_client, upload):
    collection, job = upload("1 Q0 d1 1 2.5 new\n1 Q0 nope 2 1 new\n")
    assert job.state == JobState.FAILED
    assert not Run.objects.filter(collection=collection).exists()
    page = admin_client.get(reverse("judging:job", args=[job.id]), headers={"HX-Request": "true"})
    assert (
        b"my.run:2</code> field <code>docno</code>: document &#x27;nope&#x27; is not in the collection" in page.content
    )
    assert b"hx-trigger" not in page.content  # a finished job stops the polling


def test_a_running_job_is_polled(admin_client):
    job = Job.objects.create(kind="import runs", state=JobState.RUNNING, done=30, total=120)
    page = admin_client.get(reverse("judging:job", args=[job.id]), headers={"HX-Request": "true"})
    assert b'hx-trigger="every 1s"' in page.content and b'value="25"' in page.content


def test_assessors_cannot_reach_the_import_page(client):
    client.force_login(make_user("assessor"))
    collection = make_collection(runs=0)
    assert client.get(reverse("judging:import", args=[collection.id])).status_code == 302
