"""An import uploaded to the web process runs in a worker process that shares no filesystem with it (its own var
directory): the upload travels through the database, on PostgreSQL and Redis, as in the compose file."""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from config.celery import app
from judging.jobs.models import Job, JobState, Upload
from judging.models import Run
from tests.factories import make_collection, make_user
from tests.integration.test_recompute_resilience import stop, worker_process
from tests.integration.test_worker_recompute import wait_until

pytestmark = [pytest.mark.integration, pytest.mark.slow, pytest.mark.django_db(transaction=True)]


def test_a_web_upload_is_imported_by_a_worker_with_a_different_media_directory(client, tmp_path, settings):
    app.control.purge()
    settings.MEDIA_ROOT = tmp_path / "web-media"
    collection = make_collection(runs=0)
    client.force_login(make_user("admin"))
    worker = worker_process({"WORKBENCH_VAR_DIR": str(tmp_path / "worker-var")}, tmp_path / "worker.log")
    try:
        data = {"kind": "runs", "file": SimpleUploadedFile("team.run", b"1 Q0 d1 1 2.5 team\n2 Q0 d2 1 1.0 team\n")}
        response = client.post(reverse("judging:import", args=[collection.id]), data)
        assert response.status_code == 302
        job = Job.objects.get()
        finished = wait_until(lambda: Job.objects.get(pk=job.pk).state in (JobState.DONE, JobState.FAILED), 60)
        assert finished, (tmp_path / "worker.log").read_text()
    finally:
        stop(worker)
    job.refresh_from_db()
    assert job.state == JobState.DONE, (job.message, job.result)
    assert Run.objects.filter(collection=collection, tag="team").exists()
    assert not Upload.objects.exists()
    assert not (tmp_path / "web-media").exists() or not any((tmp_path / "web-media").rglob("*"))
