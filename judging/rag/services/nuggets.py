"""Writes of a topic's nuggets: added, reworded, given an importance, merged, split, removed, accepted (a machine's
proposal), voted on. Each change is kept in the nugget's history with who and when, and announces
`signals.answers_changed` for the topic in its transaction (the answers' scores follow)."""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import F, Max

from judging import signals
from judging.models import Topic
from judging.rag.models.nuggets import Importance, Nugget, NuggetChange, NuggetVote

MAX_TEXT = 500


def _text(text: str) -> str:
    text = " ".join((text or "").split())
    if not text:
        raise ValidationError({"text": "a nugget needs words"})
    if len(text) > MAX_TEXT:
        raise ValidationError({"text": f"a nugget is a short fact: at most {MAX_TEXT} characters"})
    return text


def _importance(importance: str) -> str:
    if importance not in Importance.values:
        raise ValidationError({"importance": f"{importance!r} is not one of {', '.join(Importance.values)}"})
    return importance


def _changed(topic_id: int) -> None:
    signals.answers_changed.send(sender=Nugget, topic_ids=[topic_id], collection_id=None)


def _live(nugget: Nugget) -> Nugget:
    """The nugget, locked, refused when removed."""
    nugget = Nugget.objects.select_for_update().get(pk=nugget.pk)
    if nugget.removed:
        raise ValidationError({"nugget": "this nugget was removed"})
    return nugget


@transaction.atomic
def nugget_create(*, topic: Topic, text: str, importance: str = Importance.OKAY, by=None, proposed_by=None) -> Nugget:
    """Adds a nugget at the end of the topic's list: a person's (accepted) or a machine judge's proposal (not
    accepted, not scored, until a person accepts it)."""
    position = (Nugget.objects.filter(topic=topic).aggregate(last=Max("position"))["last"] or 0) + 1
    nugget = Nugget.objects.create(
        topic=topic, text=_text(text), importance=_importance(importance), position=position,
        accepted=proposed_by is None, proposed_by=proposed_by,
    )  # fmt: skip
    action = "created" if proposed_by is None else "proposed"
    NuggetChange.objects.create(
        nugget=nugget, action=action, new_text=nugget.text, new_importance=nugget.importance, changed_by=by
    )
    _changed(topic.pk)
    return nugget


@transaction.atomic
def nugget_edit(*, nugget: Nugget, by, text: str | None = None, importance: str | None = None) -> Nugget:
    """Rewords the nugget and/or sets its importance; an edit that changes nothing records nothing."""
    nugget = _live(nugget)
    changes = []
    if text is not None and _text(text) != nugget.text:
        changes.append(NuggetChange(nugget=nugget, action="reworded", old_text=nugget.text, new_text=_text(text)))
        nugget.text = _text(text)
    if importance is not None and _importance(importance) != nugget.importance:
        changes.append(
            NuggetChange(
                nugget=nugget, action="importance", old_importance=nugget.importance, new_importance=importance
            )
        )
        nugget.importance = importance
    if changes:
        nugget.save(update_fields=["text", "importance", "updated_at"])
        for change in changes:
            change.changed_by = by
        NuggetChange.objects.bulk_create(changes)
        _changed(nugget.topic_id)
    return nugget


@transaction.atomic
def nuggets_accept(*, topic: Topic, by, nugget_ids: list[int] | None = None) -> int:
    """Accepts the topic's machine proposals (these, or all): they are scored from now on. Returns how many."""
    proposals = Nugget.objects.select_for_update().filter(topic=topic, accepted=False, removed=False)
    if nugget_ids is not None:
        proposals = proposals.filter(pk__in=nugget_ids)
    accepted = list(proposals)
    if accepted:
        Nugget.objects.filter(pk__in=[n.pk for n in accepted]).update(accepted=True)
        NuggetChange.objects.bulk_create(NuggetChange(nugget=n, action="accepted", changed_by=by) for n in accepted)
        _changed(topic.pk)
    return len(accepted)


@transaction.atomic
def nuggets_merge(*, keep: Nugget, other: Nugget, by, text: str | None = None) -> Nugget:
    """Merges `other` into `keep` (same topic): `keep` takes the merged text (default: both joined) and the higher
    importance; `other` is removed. Assignments of `keep` stay; those of `other` stop counting with it."""
    keep, other = _live(keep), _live(other)
    if keep.pk == other.pk or keep.topic_id != other.topic_id:
        raise ValidationError({"nugget": "merge two different nuggets of one topic"})
    merged = _text(text if text is not None else f"{keep.text}; {other.text}")
    importance = Importance.VITAL if Importance.VITAL in (keep.importance, other.importance) else Importance.OKAY
    NuggetChange.objects.create(
        nugget=keep, action="merged", old_text=keep.text, new_text=merged, old_importance=keep.importance,
        new_importance=importance, other=other, changed_by=by,
    )  # fmt: skip
    NuggetChange.objects.create(nugget=other, action="removed", old_text=other.text, other=keep, changed_by=by)
    keep.text, keep.importance, keep.accepted = merged, importance, True
    keep.save(update_fields=["text", "importance", "accepted", "updated_at"])
    other.removed = True
    other.save(update_fields=["removed", "updated_at"])
    _changed(keep.topic_id)
    return keep


@transaction.atomic
def nugget_split(*, nugget: Nugget, texts: list[str], by) -> list[Nugget]:
    """Splits a nugget into two or more: it keeps the first text (and its assignments), each other text becomes a
    new nugget of the same importance, right after it."""
    nugget = _live(nugget)
    texts = [_text(t) for t in texts if t and t.strip()]
    if len(texts) < 2:
        raise ValidationError({"text": "a split needs two or more parts"})
    later = Nugget.objects.filter(topic_id=nugget.topic_id, position__gt=nugget.position)
    later.update(position=F("position") + len(texts) - 1)
    made = [
        Nugget.objects.create(
            topic_id=nugget.topic_id,
            text=text,
            importance=nugget.importance,
            position=nugget.position + offset,
            accepted=True,
        )
        for offset, text in enumerate(texts[1:], start=1)
    ]
    NuggetChange.objects.create(
        nugget=nugget, action="split", old_text=nugget.text, new_text=texts[0], other=made[0], changed_by=by
    )
    NuggetChange.objects.bulk_create(
        NuggetChange(
            nugget=n, action="split", new_text=n.text, new_importance=n.importance, other=nugget, changed_by=by
        )
        for n in made
    )
    nugget.text, nugget.accepted = texts[0], True
    nugget.save(update_fields=["text", "accepted", "updated_at"])
    _changed(nugget.topic_id)
    return [nugget, *made]


@transaction.atomic
def nugget_remove(*, nugget: Nugget, by) -> None:
    """Removes a nugget from scoring; it stays, with its history and assignments, for the record."""
    nugget = _live(nugget)
    nugget.removed = True
    nugget.save(update_fields=["removed", "updated_at"])
    NuggetChange.objects.create(nugget=nugget, action="removed", old_text=nugget.text, changed_by=by)
    _changed(nugget.topic_id)


@transaction.atomic
def nugget_vote(*, nugget: Nugget, assessor, importance: str) -> NuggetVote:
    """Records an assessor's vote on the nugget's importance (shown as the nugget pyramid's weight). A vote does not
    change the nugget's importance, which its editors set."""
    vote, _ = NuggetVote.objects.update_or_create(
        nugget=nugget, assessor=assessor, defaults={"importance": _importance(importance)}
    )
    return vote
