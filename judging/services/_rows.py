"""The helper the topic and document writes share: rows matched by their natural key, created, updated or left."""

from __future__ import annotations

BATCH = 2000


def upsert_by_key(model, collection, key: str, records, existing: dict, fields: list[str]) -> tuple[int, int, int]:
    """Creates the records whose `key` is new, updates those whose `fields` differ, leaves the rest; returns
    (created, updated, unchanged). `existing` maps key values to the rows already stored."""
    new, changed, unchanged = [], [], 0
    for record in records:
        values = {name: getattr(record, name) for name in fields}
        row = existing.get(getattr(record, key))
        if row is None:
            new.append(model(collection=collection, **{key: getattr(record, key)}, **values))
        elif any(getattr(row, name) != value for name, value in values.items()):
            for name, value in values.items():
                setattr(row, name, value)
            changed.append(row)
        else:
            unchanged += 1
    model.objects.bulk_create(new, batch_size=BATCH)
    model.objects.bulk_update(changed, fields, batch_size=BATCH)
    return len(new), len(changed), unchanged
