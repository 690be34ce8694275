"""The demo collection (`python manage.py demo`): `corpus` (Python's own docstrings as the documents, topics and
three BM25-style runs) and `campaign` (the collection, its people, their simulated judgments and the RAG answers)."""

from judging.demo.campaign import DEMO_JUDGE, DEMO_NAME, DEMO_USERS, demo_create
from judging.demo.corpus import MODULES, TOKEN, TOPICS, demo_runs, harvest_docstrings, simulated_grade, tokens

__all__ = [
    "DEMO_JUDGE",
    "DEMO_NAME",
    "DEMO_USERS",
    "MODULES",
    "TOKEN",
    "TOPICS",
    "demo_create",
    "demo_runs",
    "harvest_docstrings",
    "simulated_grade",
    "tokens",
]
