"""Uploaded files, kept in the database in chunks until their job is done, so that a worker on another machine reads
the same bytes the web process received (no shared filesystem), with memory flat in the file's size."""

from __future__ import annotations

import contextlib
import tempfile
from collections.abc import Iterator
from pathlib import Path

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.files.uploadedfile import UploadedFile
from django.db import transaction
from django.db.models import Exists, OuterRef

from judging.jobs.models import Job, JobState, Upload, UploadChunk

CHUNK_BYTES = 1 << 20
MAX_NAME_CHARS = 200


def upload_size_limit() -> int:
    return settings.WORKBENCH_LIMITS["upload_bytes"]


def upload_name(raw: str) -> str:
    """The file's own name, without folders, NUL or control characters, shortened to fit the column: it is shown
    in problems (file:line) and pages."""
    name = "".join(c for c in Path(raw or "upload").name if c.isprintable()) or "upload"
    if len(name) <= MAX_NAME_CHARS:
        return name
    _stem, dot, suffix = name.rpartition(".")
    suffix = f".{suffix}" if dot and len(suffix) <= 16 else ""
    return name[: MAX_NAME_CHARS - len(suffix) - 1] + "…" + suffix


@transaction.atomic
def upload_store(*, upload: UploadedFile, created_by=None) -> Upload:
    """Stores an uploaded file chunk by chunk; refuses (ValidationError on 'file') one larger than the limit."""
    limit = upload_size_limit()
    if upload.size is not None and upload.size > limit:
        raise ValidationError({"file": f"the file is {upload.size:,} bytes; the limit is {limit:,} bytes"})
    stored = Upload.objects.create(name=upload_name(upload.name), created_by=created_by)
    size = 0
    buffer = bytearray()
    index = 0
    for piece in upload.chunks(CHUNK_BYTES):
        size += len(piece)
        if size > limit:
            raise ValidationError({"file": f"the file is larger than the limit of {limit:,} bytes"})
        buffer += piece
        while len(buffer) >= CHUNK_BYTES:
            UploadChunk.objects.create(upload=stored, index=index, data=bytes(buffer[:CHUNK_BYTES]))
            del buffer[:CHUNK_BYTES]
            index += 1
    if buffer:
        UploadChunk.objects.create(upload=stored, index=index, data=bytes(buffer))
    Upload.objects.filter(pk=stored.pk).update(size=size)
    stored.size = size
    return stored


def upload_chunks(*, upload_id: int) -> Iterator[bytes]:
    """The stored bytes, one chunk at a time (one row in memory at once)."""
    for chunk_id in UploadChunk.objects.filter(upload_id=upload_id).order_by("index").values_list("pk", flat=True):
        yield bytes(UploadChunk.objects.values_list("data", flat=True).get(pk=chunk_id))


@contextlib.contextmanager
def upload_local_copy(*, upload_id: int) -> Iterator[Path]:
    """A temporary local file holding the upload (the importers read files), removed on exit."""
    with tempfile.TemporaryDirectory(prefix="workbench-upload-") as folder:
        path = Path(folder) / "upload"
        with open(path, "wb") as out:
            for data in upload_chunks(upload_id=upload_id):
                out.write(data)
        yield path


def upload_delete(*, upload_id: int) -> None:
    Upload.objects.filter(pk=upload_id).delete()


def uploads_purge(*, older_than) -> int:
    """Deletes uploads older than `older_than` that no queued or running job still needs (a failed job's upload is
    kept a while, for its retry)."""
    busy = Job.objects.filter(upload=OuterRef("pk"), state__in=[JobState.QUEUED, JobState.RUNNING])
    _, deleted = Upload.objects.filter(created_at__lt=older_than).exclude(Exists(busy)).delete()
    return deleted.get(Upload._meta.label, 0)
