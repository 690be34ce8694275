"""Reads of preference judging: each topic's candidates for the tournament, an assessor's standing in it (their own
answers only), which side each document is shown on, and agreement between assessors on the pairs they share.

Candidates, in prior order: the pool's documents by their graded labels (the adjudicated grade, else the mean of the
counted assessors' grades), then by a machine judge's (the mean of the advisory assessors' grades), then by pool
priority; the first `preference_candidates` enter.
"""

from __future__ import annotations

import hashlib
from collections import defaultdict

from judging import selectors
from judging.models import PoolItem, Topic
from judging.preferences import core as tournament
from judging.preferences.models import Preference, PreferenceOutcome, PreferenceSettings
from judging.sources import selectors as sources
from measures.agreement import krippendorff_alpha, percent_agreement

OUTCOMES = [choice.value for choice in PreferenceOutcome]


def preference_settings(collection) -> PreferenceSettings:
    """A collection's judging mode and tournament size: its row, or the defaults (graded) while it has none."""
    try:
        return collection.preference_settings
    except PreferenceSettings.DoesNotExist:
        return PreferenceSettings(collection=collection)


SETTINGS = ("judging_mode", "preference_candidates", "preference_top")


def preference_settings_values(*, collection) -> dict:
    settings = preference_settings(collection)
    return {name: getattr(settings, name) for name in SETTINGS}


def by_preferences(collection) -> bool:
    """Whether the collection's assessors compare documents in pairs instead of grading them one at a time."""
    return preference_settings(collection).judging_mode == "preferences"


def candidates(*, topic: Topic) -> list[int]:
    """The topic's tournament candidates (document ids), best prior first."""
    collection = topic.collection
    judged, adjudicated = selectors.topic_labels(topic_id=topic.id)
    advisory = sources.advisory_accounts(collection=collection)

    def mean(grades: list[int]) -> float:
        return sum(grades) / len(grades) if grades else -1.0

    prior = {}
    for document_id, priority in PoolItem.objects.filter(topic=topic).values_list("document_id", "priority"):
        labels = judged.get(document_id, {})
        people = adjudicated.get(document_id)
        if people is None:
            people = mean([g for a, g in labels.items() if a not in advisory])
        machine = mean([g for a, g in labels.items() if a in advisory])
        prior[document_id] = (-people, -machine, -priority, document_id)
    return sorted(prior, key=prior.__getitem__)[: preference_settings(collection).preference_candidates]


def answers(*, assessor_id: int, topic: Topic) -> dict[frozenset, int | None]:
    """{frozenset((a, b)): the preferred document id, or None for a tie} of the assessor's comparisons."""
    known: dict[frozenset, int | None] = {}
    rows = Preference.objects.filter(assessor_id=assessor_id, topic=topic)
    for first, second, outcome in rows.values_list("first_id", "second_id", "outcome"):
        known[frozenset((first, second))] = {"first": first, "second": second}.get(outcome)
    return known


def standing(*, assessor_id: int, topic: Topic) -> tournament.Standing:
    known = answers(assessor_id=assessor_id, topic=topic)
    return tournament.standing(candidates(topic=topic), known, preference_settings(topic.collection).preference_top)


def sides(assessor_id: int, topic_id: int, pair: tuple[int, int]) -> tuple[int, int]:
    """(left, right): each pair's sides are drawn once per assessor (stable on reload), so that no document is
    favoured by always appearing on the same side."""
    low, high = sorted(pair)
    flip = hashlib.blake2b(f"{assessor_id}:{topic_id}:{low}:{high}".encode(), digest_size=1).digest()[0] % 2
    return (high, low) if flip else (low, high)


def preference_items(*, topic_ids: list[int]) -> dict[tuple[int, int, int], dict[int, str]]:
    """{(topic, first, second): {assessor: outcome}} of every comparison of the topics."""
    items: dict[tuple[int, int, int], dict[int, str]] = defaultdict(dict)
    rows = Preference.objects.filter(topic_id__in=topic_ids)
    for topic, first, second, assessor, outcome in rows.values_list(
        "topic_id", "first_id", "second_id", "assessor_id", "outcome"
    ):
        items[(topic, first, second)][assessor] = outcome
    return dict(items)


def preference_agreement(*, topic_ids: list[int]) -> dict:
    """Agreement between assessors on the pairs two or more of them compared: the share of assessor pairs giving
    the same outcome, and Krippendorff's alpha (nominal) over the four outcomes."""
    items = preference_items(topic_ids=topic_ids)
    shared = [labels for labels in items.values() if len(labels) >= 2]
    return {
        "pairs": len(items),
        "shared_pairs": len(shared),
        "agreement": percent_agreement(shared) if shared else None,
        "alpha": krippendorff_alpha(shared, categories=OUTCOMES) if shared else None,
    }
