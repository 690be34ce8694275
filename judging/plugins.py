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


def plug(hook: list, function: Callable) -> None:
    """Adds `function` to `hook` once, however often an app config's ready() runs."""
    if function not in hook:
        hook.append(function)


def refuse_label(*, collection, assessor) -> None:
    """Runs every label guard (each may raise)."""
    for guard in label_guards:
        guard(collection=collection, assessor=assessor)
