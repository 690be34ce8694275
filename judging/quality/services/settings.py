"""Writes of a collection's quality settings (pauses, gold and repeated items), changed through the collection's
one settings service (`judging.plugins.settings_writers`)."""

from __future__ import annotations

from judging import plugins
from judging.quality.selectors import SETTINGS, quality_settings


def quality_settings_update(*, collection, changes: dict) -> set[str]:
    """Takes the quality settings out of `changes` and stores them in the collection's row (made on the first
    change); ValidationError names the field. Returns the names whose value changed."""
    row = quality_settings(collection)
    changed = plugins.settings_applied(row, {name: changes.pop(name) for name in SETTINGS if name in changes})
    if changed:
        row.save()
    return changed
