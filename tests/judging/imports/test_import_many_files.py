"""Many files in one import (a track's dozens of runs): chosen together, or as a .zip or .tar.gz, they become one
job with one report, all or nothing; an archive that would write outside its folder is refused."""

from __future__ import annotations

import io
import tarfile
import zipfile

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse
from rest_framework.test import APIClient

from judging.imports.core import archives
from judging.jobs.models import Job, JobState
from judging.models import Judgment, Run
from tests.factories import make_collection, make_user

pytestmark = pytest.mark.django_db


def _run(tag: str, bad: bool = False) -> bytes:
    return (f"1 Q0 d1 1 2.5 {tag}\n2 Q0 d2 1 1.0 {tag}\n" + ("2 Q0 d3 x 1.0 oops\n" if bad else "")).encode()


@pytest.fixture
def post(client, django_capture_on_commit_callbacks):
    client.force_login(make_user("admin"))

    def send(collection, kind, files):
        with django_capture_on_commit_callbacks(execute=True):
            response = client.post(reverse("judging:import", args=[collection.id]), {"kind": kind, "file": files})
        assert response.status_code == 302, response.content[:2000]
        return Job.objects.get(pk=int(response.url.rstrip("/").split("/")[-1]))

    return send


def test_several_run_files_chosen_together_are_one_job_with_one_report(post):
    collection = make_collection(runs=0)
    files = [SimpleUploadedFile(f"{tag}.run", _run(tag)) for tag in ("alpha", "beta", "gamma")]
    job = post(collection, "runs", files)
    assert (job.state, job.result["created"], job.result["files"]) == (JobState.DONE, 3, 3)
    assert sorted(Run.objects.filter(collection=collection).values_list("tag", flat=True)) == ["alpha", "beta", "gamma"]
    assert Job.objects.count() == 1


def test_one_bad_file_among_several_imports_nothing_and_names_its_file_and_line(post):
    collection = make_collection(runs=0, topics=2)
    qrels = [
        SimpleUploadedFile("a.qrels", b"1 0 d1 1\n"),
        SimpleUploadedFile("b.qrels", b"1 0 d2 1\n2 0 d3 x\n"),
        SimpleUploadedFile("c.qrels", b"2 0 d4 1\n"),
    ]
    job = post(collection, "qrels", qrels)
    assert job.state == JobState.FAILED
    # named as the user chose it: no zip was uploaded ("3 files.zip/b.qrels" named the bundle the workbench made)
    assert [(p["file"], p["line"], p["field"]) for p in job.result["problems"]] == [("b.qrels", 2, "grade")]
    assert not Judgment.objects.filter(topic__collection=collection).exists()


def test_a_problem_in_an_uploaded_archive_names_the_archive_and_its_member(post):
    import io
    import zipfile

    collection = make_collection(runs=0, topics=2)
    packed = io.BytesIO()
    with zipfile.ZipFile(packed, "w") as archive:
        archive.writestr("good.qrels", "1 0 d1 1\n")
        archive.writestr("bad.qrels", "1 0 d2 1\n2 0 d3 x\n")
    job = post(collection, "qrels", [SimpleUploadedFile("track.zip", packed.getvalue())])
    assert [(p["file"], p["line"]) for p in job.result["problems"]] == [("track.zip/bad.qrels", 2)]


def _zip(members: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return buffer.getvalue()


def _tar_gz(members: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


@pytest.mark.parametrize(("archive", "name"), [(_zip, "runs.zip"), (_tar_gz, "runs.tar.gz")])
def test_a_zip_or_tar_gz_of_runs_is_imported_whole(post, archive, name):
    collection = make_collection(runs=0)
    data = archive({"runs/alpha.run": _run("alpha"), "runs/beta.run": _run("beta")})
    job = post(collection, "runs", [SimpleUploadedFile(name, data)])
    assert (job.state, job.result["created"]) == (JobState.DONE, 2)


@pytest.mark.parametrize("member", ["../escape.run", "/etc/cron.d/x", "a/../../b.run"])
def test_an_archive_member_outside_its_folder_is_refused(post, member):
    collection = make_collection(runs=0)
    job = post(collection, "runs", [SimpleUploadedFile("evil.tar.gz", _tar_gz({member: _run("evil")}))])
    assert job.state == JobState.FAILED and "may not leave the archive" in job.message
    assert not Run.objects.filter(collection=collection).exists()


def test_an_archive_larger_than_the_upload_limit_once_opened_is_refused(tmp_path):
    path = tmp_path / "bomb.zip"
    path.write_bytes(_zip({"big.run": b"0" * 200_000}))
    with pytest.raises(archives.ArchiveRefused, match="more than the limit"):
        archives.extract(path, "bomb.zip", tmp_path, max_bytes=100_000)


def test_an_archive_with_more_members_than_the_limit_is_refused_without_reading_past_it(tmp_path, monkeypatch):
    monkeypatch.setattr(archives, "MAX_MEMBERS", 10)
    path = tmp_path / "many.tar.gz"
    path.write_bytes(_tar_gz({f"empty-{i}.run": b"" for i in range(3000)}))
    headers, opened = [], []
    read_header, open_tar = tarfile.TarInfo.fromtarfile, tarfile.open
    monkeypatch.setattr(tarfile.TarInfo, "fromtarfile", classmethod(lambda cls, t: headers.append(1) or read_header(t)))
    monkeypatch.setattr(archives.tarfile, "open", lambda *a, **k: opened.append(open_tar(*a, **k)) or opened[-1])
    with pytest.raises(archives.ArchiveRefused, match="more than 10 files"):
        archives.extract(path, "many.tar.gz", tmp_path, max_bytes=10_000_000)
    assert len(headers) <= 11 and opened[0].closed


def test_a_zip_declaring_more_members_than_the_limit_is_refused_before_its_directory_is_read(tmp_path, monkeypatch):
    monkeypatch.setattr(archives, "MAX_MEMBERS", 10)
    path = tmp_path / "many.zip"
    path.write_bytes(_zip({f"empty-{i}.run": b"" for i in range(50)}))
    monkeypatch.setattr(archives.zipfile, "ZipFile", None)  # the central directory is never parsed
    with pytest.raises(archives.ArchiveRefused, match="more than 10 files"):
        archives.extract(path, "many.zip", tmp_path, max_bytes=10_000_000)


@pytest.mark.parametrize("kind", ["zip", "tar.gz"])
def test_two_members_of_one_name_in_an_archive_are_refused_as_separate_uploads_are(post, kind):
    collection = make_collection(runs=0)
    if kind == "zip":
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w") as archive, pytest.warns(UserWarning, match="Duplicate name"):
            archive.writestr("one.run", _run("one"))
            archive.writestr("one.run", _run("two"))
        data = buffer.getvalue()
    else:
        buffer = io.BytesIO()
        with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
            for tag in ("one", "two"):
                info = tarfile.TarInfo("runs/one.run")
                content = _run(tag)
                info.size = len(content)
                archive.addfile(info, io.BytesIO(content))
        data = buffer.getvalue()
    job = post(collection, "runs", [SimpleUploadedFile(f"twice.{kind}", data)])
    assert job.state == JobState.FAILED and "two files are named" in job.message
    assert not Run.objects.filter(collection=collection).exists()


def test_the_api_takes_several_files_in_one_request(django_capture_on_commit_callbacks):
    collection = make_collection(runs=0)
    client = APIClient()
    client.force_authenticate(make_user("admin"))
    files = [SimpleUploadedFile(f"{tag}.run", _run(tag)) for tag in ("one", "two")]
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(
            f"/api/collections/{collection.id}/imports/", {"kind": "runs", "file": files}, format="multipart"
        )
    assert response.status_code == 202
    job = client.get(response.json()["url"]).json()
    assert (job["state"], job["result"]["created"]) == (JobState.DONE, 2)
