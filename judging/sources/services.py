"""Whose labels count, as data: each account that labels in a collection is a source with a kind (person, machine
judge, imported file, clicks) and a role (counted in the consensus, advisory, gold), changed only here, each
change kept with who made it, when and why. A change of role changes what the consensus is made of, so it is
announced (`signals.collection_changed`, "label_sources") and evaluation recomputes the collection."""

from __future__ import annotations

from collections.abc import Iterable

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.db import transaction

from judging import signals
from judging.models import Collection
from judging.sources.models import LabelSource, LabelSourceChange, SourceKind, SourceRole

# The name a role change is announced under (evaluation's settings key and staleness read it).
LABEL_SOURCES = "label_sources"


@transaction.atomic
def label_source_set(
    *,
    collection: Collection,
    account,
    kind: str | None = None,
    role: str | None = None,
    changed_by=None,
    reason: str = "",
) -> LabelSource:
    """Sets what `account` (a user or its id) is in `collection` and what its labels do; None leaves either as it
    is (a new source: a counted person). Refuses, naming the field, a kind or role not among the choices and an
    account that does not exist. Records the change in the audit trail, and announces a change of role."""
    account_id = getattr(account, "pk", account)
    if kind is not None and kind not in SourceKind.values:
        raise ValidationError({"kind": f"choose one of {', '.join(SourceKind.values)}"})
    if role is not None and role not in SourceRole.values:
        raise ValidationError({"role": f"choose one of {', '.join(SourceRole.values)}"})
    if not get_user_model().objects.filter(pk=account_id).exists():
        raise ValidationError({"account": f"no account with id {account_id}"})
    source, made = LabelSource.objects.select_for_update().get_or_create(collection=collection, account_id=account_id)
    before = ("", "") if made else (source.kind, source.role)
    source.kind, source.role = kind or source.kind, role or source.role
    if not made and (source.kind, source.role) == before:
        return source
    source.save(update_fields=["kind", "role"])
    LabelSourceChange.objects.create(
        source=source,
        kind=source.kind,
        role=source.role,
        previous_kind=before[0],
        previous_role=before[1],
        changed_by=changed_by,
        reason=reason[:200],
    )
    if source.role != (before[1] or SourceRole.COUNTED):
        signals.collection_changed.send(
            sender=Collection, collection_id=collection.pk, changed=frozenset({LABEL_SOURCES})
        )
    return source


def label_source_made(*, collection: Collection, account, kind: str, role: str, changed_by=None, reason: str = ""):
    """The account's source in the collection as it is, or, on first use, made with this kind and role: what the
    services that make accounts for labels (an import, clicks) call, so that a role an admin chose since stays."""
    account_id = getattr(account, "pk", account)
    found = LabelSource.objects.filter(collection=collection, account_id=account_id).first()
    if found is not None:
        return found
    return label_source_set(
        collection=collection, account=account_id, kind=kind, role=role, changed_by=changed_by, reason=reason
    )


def _accounts(accounts, field: str) -> list[int]:
    ids = sorted({getattr(a, "pk", a) for a in accounts or ()})
    if not all(isinstance(i, int) and not isinstance(i, bool) for i in ids):
        raise ValidationError({field: "give accounts or their ids"})
    known = set(get_user_model().objects.filter(pk__in=ids).values_list("pk", flat=True))
    unknown = [i for i in ids if i not in known]
    if unknown:
        raise ValidationError({field: f"no account with id {', '.join(map(str, unknown))}"})
    return ids


@transaction.atomic
def label_roles_set(
    *,
    collection: Collection,
    advisory: Iterable | None = None,
    gold: Iterable | None = None,
    changed_by=None,
    reason: str = "the collection's settings",
) -> None:
    """The collection's settings as lists (the settings page's and the API's `advisory_assessors` and
    `gold_assessors`): exactly these accounts advisory (or gold), every other advisory (or gold) source counted
    again. None leaves that role as it is. An account cannot be both."""
    wanted = {}
    if advisory is not None:
        wanted[SourceRole.ADVISORY] = set(_accounts(advisory, "advisory_assessors"))
    if gold is not None:
        wanted[SourceRole.GOLD] = set(_accounts(gold, "gold_assessors"))
    both = wanted.get(SourceRole.ADVISORY, set()) & wanted.get(SourceRole.GOLD, set())
    if both:
        raise ValidationError({"gold_assessors": f"account {min(both)} cannot be both advisory and gold"})
    for role, accounts in wanted.items():
        current = set(LabelSource.objects.filter(collection=collection, role=role).values_list("account_id", flat=True))
        for account_id in sorted(current - accounts):
            label_source_set(
                collection=collection, account=account_id, role=SourceRole.COUNTED, changed_by=changed_by,
                reason=reason,
            )  # fmt: skip
        for account_id in sorted(accounts - current):
            label_source_set(collection=collection, account=account_id, role=role, changed_by=changed_by, reason=reason)
