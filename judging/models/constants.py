"""The judging core's limits, roles, consensus methods and the measures a new collection computes by default."""

from __future__ import annotations

from django.db import models

MAX_SCALE = 5
MAX_NOTE_CHARS = 10_000
MAX_REASON_CHARS = 200
MAX_CHECK_RATE = 0.5
ROLE_ADMIN, ROLE_ASSESSOR, ROLE_RESEARCHER = "admin", "assessor", "researcher"
# A participant submits runs for their team (`judging.tracks`); what they see is scoped to their team's collections.
ROLE_PARTICIPANT = "participant"
ROLES = (ROLE_ADMIN, ROLE_ASSESSOR, ROLE_RESEARCHER, ROLE_PARTICIPANT)


BEST_RANK = "best_rank"  # the static order, every collection's default


class ConsensusMethod(models.TextChoices):
    MAJORITY = "majority", "Majority vote (ties: higher grade)"
    MEDIAN = "median", "Median grade"
    MEAN = "mean", "Rounded mean"
    PRIMARY = "primary", "Primary assessor"
    DAWID_SKENE = "dawid_skene", "Dawid-Skene"


def default_measures() -> list[str]:
    return ["P@5", "P@10", "R@100", "AP", "GMAP", "Rprec", "RR", "Bpref", "nDCG", "nDCG@10", "ERR@10", "Judged@10"]
