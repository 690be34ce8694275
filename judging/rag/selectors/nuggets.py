"""Reads of nuggets for the judging pages: a topic's nuggets with their importance votes (the pyramid weight) and
history, the segments to write them from, and the assignments people disagree on (for adjudication)."""

from __future__ import annotations

from collections import defaultdict

from django.db.models import QuerySet

from judging.models import Collection, Topic
from judging.rag.models.nuggets import AssignmentAdjudication, Nugget, NuggetAssignment, NuggetChange, NuggetVote
from judging.sources.models import SourceRole
from judging.sources.selectors import answer_labels


def topic_nuggets(*, topic: Topic, voter_id: int | None = None) -> list[dict]:
    """The topic's nuggets not removed, in order: each with its vital and okay votes, the pyramid weight (the share
    of vital votes; None without votes), and the voter's own vote."""
    nuggets = list(
        Nugget.objects.filter(topic=topic, removed=False).select_related("proposed_by").order_by("position", "id")
    )
    votes: dict[int, dict[str, int]] = defaultdict(lambda: {"vital": 0, "okay": 0})
    own = {}
    for nugget_id, assessor_id, importance in NuggetVote.objects.filter(nugget__topic=topic).values_list(
        "nugget_id", "assessor_id", "importance"
    ):
        votes[nugget_id][importance] += 1
        if assessor_id == voter_id:
            own[nugget_id] = importance
    found = []
    for nugget in nuggets:
        counted = votes[nugget.pk]
        total = counted["vital"] + counted["okay"]
        found.append({
            "nugget": nugget, "vital_votes": counted["vital"], "okay_votes": counted["okay"],
            "weight": counted["vital"] / total if total else None, "my_vote": own.get(nugget.pk, ""),
        })  # fmt: skip
    return found


def nugget_history(*, topic: Topic, limit: int = 100) -> list[NuggetChange]:
    return list(NuggetChange.objects.filter(nugget__topic=topic).select_related("changed_by", "nugget")[:limit])


def assignment_disputes(*, collection: Collection) -> list[dict]:
    """The (answer, nugget) items the counted people label differently and no admin has settled, each with the
    labels given (who gave them is not shown: the adjudicator decides on the labels)."""
    people = people_assignments(collection=collection).filter(nugget__removed=False)
    counted_rows = counted_assignments(collection=collection).filter(nugget__removed=False)
    counted = set(counted_rows.values_list("id", flat=True))
    labels: dict[tuple[int, int], list[str]] = defaultdict(list)
    for row_id, answer_id, nugget_id, label in people.values_list("id", "answer_id", "nugget_id", "label"):
        if row_id in counted:
            labels[answer_id, nugget_id].append(label)
    settled = set(
        AssignmentAdjudication.objects.filter(answer__topic__collection=collection).values_list(
            "answer_id", "nugget_id"
        )
    )
    disputed = [key for key, found in labels.items() if len(set(found)) > 1 and key not in settled]
    nuggets = Nugget.objects.in_bulk([n for _, n in disputed])
    return [{"answer_id": a, "nugget": nuggets[n], "labels": sorted(labels[a, n])} for a, n in sorted(disputed)]


def counted_assignments(*, collection: Collection, topic_ids=None) -> QuerySet:
    """The nugget assignments that count in `collection` (what the answers are scored from), decided as for
    judgments: every source but the advisory ones (a machine assigner is advisory until made counted)."""
    return answer_labels(NuggetAssignment.objects.all(), collection, role=None, topic_ids=topic_ids)


def advisory_assignments(*, collection: Collection, topic_ids=None) -> QuerySet:
    """The nugget assignments of advisory sources (machine assigners): measured against people, never counted."""
    return answer_labels(NuggetAssignment.objects.all(), collection, role=SourceRole.ADVISORY, topic_ids=topic_ids)


def people_assignments(*, collection: Collection, topic_ids=None) -> QuerySet:
    """The nugget assignments of people, whatever their role: what a machine assigner is measured against."""
    return answer_labels(NuggetAssignment.objects.all(), collection, role=None, people=True, topic_ids=topic_ids)
