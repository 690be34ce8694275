"""What every downloaded file carries: its name (collection, kind, results version) and its provenance, and text made
safe for a spreadsheet. Used by every export, page and command line that writes a file."""

from __future__ import annotations

import json
import re

from django.http import StreamingHttpResponse
from django.utils import timezone

from evaluation.models import CollectionState
from evaluation.selectors import settings_key
from judging.models import Collection

CONTENT_TYPES = {"txt": "text/plain", "jsonl": "application/x-ndjson", "csv": "text/csv", "json": "application/json"}


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


def collection_slug(collection: Collection) -> str:
    """The collection's name as a safe file-name part: letters, digits, '.', '_' and '-' only (no quote, no line
    break can reach a Content-Disposition header)."""
    return re.sub(r"[^A-Za-z0-9._-]+", "-", collection.name).strip("-.") or f"collection-{collection.pk}"


def export_name(collection: Collection, kind: str, version: int, extension: str) -> str:
    """A file name that says what it is: `<collection>-<kind>-v<qrels version>.<ext>`."""
    return f"{collection_slug(collection)}-{kind}-v{version}.{extension}"


FORMULA_PREFIXES = ("=", "+", "-", "@", "\t", "\r")


def spreadsheet_text(value: str) -> str:
    """A text cell a spreadsheet shows as text, never runs: one starting like a formula gets a leading apostrophe
    (OWASP's CSV-injection rule). For text columns only; numbers are written as numbers."""
    return "'" + value if value.startswith(FORMULA_PREFIXES) else value


def streamed(name: str, meta: dict, lines) -> StreamingHttpResponse:
    """An export's lines as a download named `name`, its provenance in the X-Qrels-Version, X-Evaluation-Settings
    and X-Provenance headers."""
    response = StreamingHttpResponse(lines, content_type=CONTENT_TYPES[name.rsplit(".", 1)[1]] + "; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{name}"'
    response["X-Qrels-Version"] = str(meta["qrels_version"])
    response["X-Evaluation-Settings"] = meta["settings"]
    response["X-Provenance"] = json.dumps(meta)
    return response
