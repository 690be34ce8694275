"""Writes of a collection's quality settings (pauses, gold and repeated items), changed through the collection's
one settings service (`judging.plugins.settings_writers`)."""

from __future__ import annotations

from judging.quality.selectors import SETTINGS, quality_settings


def quality_settings_update(*, collection, changes: dict) -> set[str]:
    """Takes the quality settings out of `changes` and stores them in the collection's row (made on the first
    change); ValidationError names the field. Returns the names whose value changed."""
    row = quality_settings(collection)
    values = {name: changes.pop(name) for name in SETTINGS if name in changes}
    changed = {name for name, value in values.items() if getattr(row, name) != value}
    if changed:
        for name in changed:
            setattr(row, name, values[name])
        row.full_clean()
        row.save()
    return changed
