"""The import page: an upload becomes a Job run by a Celery task, whose page shows progress, the report or the
problems by line."""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from judging.jobs.models import Job, JobState, Upload
from judging.models import Run
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
    assert not Upload.objects.exists()  # the stored upload is removed once imported
    page = admin_client.get(reverse("judging:job", args=[job.id]))
    assert b'value="100"' in page.content
    assert b"Imported runs: 1 new, 0 updated, 0 unchanged." in page.content
    assert b"_count" not in page.content and b"{&#x27;" not in page.content  # no internals, no Python dict


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
    assert client.get(reverse("judging:import", args=[collection.id])).status_code == 403


def test_a_refused_import_keeps_its_file_and_can_be_retried_skipping_the_invalid_lines(
    admin_client, upload, django_capture_on_commit_callbacks
):
    collection, job = upload("1 Q0 d1 1 2.5 new\n1 Q0 nope 2 1 new\n")
    page = admin_client.get(reverse("judging:job", args=[job.id]))
    assert b"Retry, skipping the invalid lines" in page.content
    assert reverse("judging:import", args=[collection.id]).encode() in page.content  # a way back to upload again
    with django_capture_on_commit_callbacks(execute=True):
        response = admin_client.post(reverse("judging:job_retry", args=[job.id]), {"skip_invalid": "1"})
    retry = Job.objects.get(pk=int(response.url.rstrip("/").split("/")[-1]))
    assert (retry.state, retry.retry_of_id, retry.result["created"], retry.result["skipped_count"]) == (
        JobState.DONE,
        job.id,
        1,
        1,
    )
    assert Run.objects.filter(collection=collection, tag="new").exists()


def test_an_upload_over_the_size_limit_is_refused_on_the_form(admin_client, settings):
    settings.WORKBENCH_LIMITS = {**settings.WORKBENCH_LIMITS, "upload_bytes": 10}
    collection = make_collection(runs=0)
    data = {"kind": "runs", "file": SimpleUploadedFile("big.run", b"1 Q0 d1 1 2.5 new\n")}
    response = admin_client.post(reverse("judging:import", args=[collection.id]), data)
    assert response.status_code == 200
    assert b"the limit is 10 bytes" in response.content
    assert not Job.objects.exists() and not Upload.objects.exists()
