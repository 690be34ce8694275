"""Uploaded files: stored under MEDIA_ROOT/uploads until the import task has read them."""

from __future__ import annotations

import uuid
from pathlib import Path

from django.conf import settings
from django.core.files.uploadedfile import UploadedFile


def upload_store(upload: UploadedFile) -> Path:
    folder = Path(settings.MEDIA_ROOT) / "uploads"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{uuid.uuid4().hex}-{Path(upload.name).name}"
    with open(path, "wb") as out:
        for chunk in upload.chunks():
            out.write(chunk)
    return path
