"""Where features plug into the core. Each hook is a list the core reads and a feature's app config fills
(`judging.apps`): the core never imports a feature, and reads nothing of one that is not installed."""

from __future__ import annotations

from collections.abc import Callable

# Before a person's label (a judgment, a check's answer, a preference) is stored or taken back, each guard may refuse
# it by raising a PermissionDenied: guard(*, collection, assessor). The quality feature refuses a paused assessor.
label_guards: list[Callable[..., None]] = []

# Names for the accounts that are not people (machine judges, by their judge's name), never pseudonymised:
# namer(*, collection) -> {account id: name}.
account_namers: list[Callable[..., dict[int, str]]] = []

# Accounts that labelled in a collection outside the judgments table (an assessor whose only answers are quality
# checks'), so that pages still name them: labellers(*, collection) -> set of account ids.
other_labellers: list[Callable[..., set[int]]] = []

# Scores that put the documents still to judge in an order of their own (a verification judge's likeliest errors
# first), whatever the judging order: order(*, topic, rankings) -> {document id: score}, or None when it has no say
# (`rankings` reads the topic's rankings when called: most topics need none).
queue_orders: list[Callable[..., dict[int, float] | None]] = []

# A feature's own settings of a collection (quality checks, preferences, the verified machine judge), kept in the
# feature's row and changed through the collection's one settings service: writer(*, collection, changes) takes the
# names it owns out of `changes`, writes them (ValidationError naming the field) and returns those that changed.
settings_writers: list[Callable[..., set[str]]] = []

# The same settings as the settings page and the API show them: reader(*, collection) -> {name: value}.
settings_readers: list[Callable[..., dict]] = []

# The relations from a collection to each feature's settings row, so that a page reads them with its collection in one
# query (`with_settings`) instead of one query per feature.
settings_relations: list[str] = []

# Keys (topic id, document id) an assessor's own queue leaves out, because a feature shows them otherwise (gold items
# reach a counted assessor only as gold checks): reserved(*, collection, assessor_id, topic_ids) -> set of keys.
queue_reservations: list[Callable[..., set[tuple[int, int]]]] = []


def plug(hook: list, function: Callable) -> None:
    """Adds `function` to `hook` once, however often an app config's ready() runs."""
    if function not in hook:
        hook.append(function)


def refuse_label(*, collection, assessor) -> None:
    """Runs every label guard (each may raise)."""
    for guard in label_guards:
        guard(collection=collection, assessor=assessor)


def settings_write(*, collection, changes: dict) -> set[str]:
    """Hands each feature its settings among `changes` (taking them out); returns the names that changed."""
    changed: set[str] = set()
    for writer in settings_writers:
        changed |= writer(collection=collection, changes=changes)
    return changed


def settings_applied(row, values: dict) -> set[str]:
    """Sets on a feature's settings row each of `values` that differs and checks the row (ValidationError naming
    the field); returns the names that changed. The feature's service saves the row when any did."""
    changed = {name for name, value in values.items() if getattr(row, name) != value}
    for name in changed:
        setattr(row, name, values[name])
    if changed:
        row.full_clean()
    return changed


def settings_read(*, collection) -> dict:
    """Every installed feature's settings of the collection, by name (`settings_readers`)."""
    values: dict = {}
    for reader in settings_readers:
        values |= reader(collection=collection)
    return values


def with_settings(queryset, through: str = ""):
    """`queryset` reading every feature's settings row of its collections in the same query; `through` is the path
    to the collection ("collection__" from a topic)."""
    return queryset.select_related(*(f"{through}{relation}" for relation in settings_relations))


def reserved_items(*, collection, assessor_id: int, topic_ids=None) -> set[tuple[int, int]]:
    """What every feature keeps out of this assessor's own queue (`queue_reservations`)."""
    keys: set[tuple[int, int]] = set()
    for reserved in queue_reservations:
        keys |= reserved(collection=collection, assessor_id=assessor_id, topic_ids=topic_ids)
    return keys
