"""Exports of qrels and results, streamed row by row (constant memory), each naming where it came from.

`provenance` says which qrels version and evaluation settings an export reflects; the file name carries the
version, and the same facts go in a sidecar JSON (the command writes FILE.provenance.json; the web and the API
send them as X-Qrels-Version / X-Evaluation-Settings headers), so that the body stays what trec_eval reads as is.
"""

from __future__ import annotations

import re

from django.utils import timezone

from judging.models import Collection

from ..models import CollectionState
from ..services.storage import settings_key


def provenance(collection: Collection, **details) -> dict:
    state = CollectionState.objects.filter(collection=collection).first()
    return {
        "collection": collection.name,
        "qrels_version": state.qrels_version if state else 0,
        "settings": settings_key(collection),
        "fresh": state.fresh if state else True,
        "exported_at": timezone.now().isoformat(),
        **details,
    }


def export_name(collection: Collection, kind: str, version: int, extension: str) -> str:
    """A file name that says what it is: `<collection>-<kind>-v<qrels version>.<ext>`."""
    slug = re.sub(r"[^A-Za-z0-9._-]+", "-", collection.name).strip("-") or f"collection-{collection.pk}"
    return f"{slug}-{kind}-v{version}.{extension}"
