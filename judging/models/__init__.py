"""Database tables of the judging app's core: the campaign's entities and their labels, one module a subject
(`collection`, `entities`, `labels`). Business rules live in the services; these models hold data and constraints.
Every name is re-exported here, as callers and the migrations spell it (`judging.models.*`)."""

from __future__ import annotations

from judging.models.collection import Collection, Grade
from judging.models.constants import (
    BEST_RANK,
    MAX_CHECK_RATE,
    MAX_NOTE_CHARS,
    MAX_REASON_CHARS,
    MAX_SCALE,
    ROLE_ADMIN,
    ROLE_ASSESSOR,
    ROLE_PARTICIPANT,
    ROLE_RESEARCHER,
    ROLES,
    ConsensusMethod,
    default_measures,
)
from judging.models.entities import Document, PoolItem, Ranking, Run, Topic
from judging.models.labels import Adjudication, Assignment, AssignmentState, ChangeRecord, Judgment, JudgmentHistory

__all__ = [
    "BEST_RANK",
    "MAX_CHECK_RATE",
    "MAX_NOTE_CHARS",
    "MAX_REASON_CHARS",
    "MAX_SCALE",
    "ROLES",
    "ROLE_ADMIN",
    "ROLE_ASSESSOR",
    "ROLE_PARTICIPANT",
    "ROLE_RESEARCHER",
    "Adjudication",
    "Assignment",
    "AssignmentState",
    "ChangeRecord",
    "Collection",
    "ConsensusMethod",
    "Document",
    "Grade",
    "Judgment",
    "JudgmentHistory",
    "PoolItem",
    "Ranking",
    "Run",
    "Topic",
    "default_measures",
]
