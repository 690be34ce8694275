"""Writes of pool items (building a pool is `judging.pools`)."""

from __future__ import annotations

from collections.abc import Sequence

from django.db import transaction

from ..models import (
    Collection,
    PoolItem,
    Run,
)
from ..pools import pool_build


def pool_build_depth(*, collection: Collection, depth: int, runs: Sequence[Run] | None = None) -> int:
    """TREC depth-k pooling (see `pools.pool_build` for every strategy and the preview); returns new items added."""
    return pool_build(collection=collection, strategy="depth", depth=depth, runs=runs, more_assessors=True).added


@transaction.atomic
def pool_items_delete(*, items) -> int:
    """Takes items out of their topics' judging queues; judgments already made stay (they are real labels)."""
    deleted, _ = PoolItem.objects.filter(pk__in=[item.pk for item in items]).delete()
    return deleted
