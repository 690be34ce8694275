"""The rule that watches what runs (tests/rules/statements.py) catches each slip the name-matching rules let
through, whatever its spelling: each slip below is compiled as code of the module named beside it and run against a
real database, and the watch must report it. The same code run from a service allowed to do it passes."""

from __future__ import annotations

import contextlib

import pytest

from tests.factories import make_collection, make_user
from tests.rules.statements import Ownership, StatementWatch, stamp_querysets

pytestmark = pytest.mark.django_db


def run_as(module: str, code: str, **names):
    """Runs `code` (a function body) as if written in `module`, so the watch attributes its statements there."""
    scope = {"__name__": module, **names}
    exec(
        compile("def slip():\n" + "\n".join("    " + line for line in code.splitlines()), f"<{module}>", "exec"), scope
    )
    return scope["slip"]()


@pytest.fixture
def watched(statement_watch):
    """The suite's watch, emptied before and after: what the slip issued, and only that."""
    statement_watch.taken()
    yield statement_watch
    statement_watch.taken()


@pytest.fixture
def campaign():
    collection = make_collection(topics=1, documents=3, runs=1, depth=3)
    topic = collection.topics.get()
    assessor = make_user()
    from judging.services.assignments import assignment_create
    from judging.services.judgments import judgment_record

    assignment_create(assessor=assessor, topic=topic)
    for document in collection.documents.all()[:2]:
        judgment_record(assessor=assessor, topic=topic, document=document, grade=1)
    return {"collection": collection, "topic": topic, "document": collection.documents.last(), "assessor": assessor}


SLIPS = {
    # (A) writes in a view: through a related manager, through .update() on a selector's queryset, through the SQL layer
    "a view creating a pool item through a related manager": (
        "judging.views.campaign",
        "topic.pool_items.create(document=document, best_rank=99)",
        "judging_poolitem",
    ),
    "a view updating a queryset a selector returned": (
        "judging.views.campaign",
        "selected(collection).update(title='renamed')",
        "judging_topic",
    ),
    "a view writing through the SQL layer's helpers": (
        "judging.views.assessor",
        "from config import sql\nsql.fetch('UPDATE judging_topic SET title = %s WHERE id = %s', ['x', topic.id])",
        "judging_topic",
    ),
    # (B) a service writing another entity through a relation
    "the topics service deleting judgments through the relation": (
        "judging.services.topics",
        "topic.judgments.all().delete()",
        "judging_judgment",
    ),
    # (C) label reads through multi-hop lookups, aggregates, prefetches and the default manager
    "a view filtering topics by their judgments' grades": (
        "judging.views.campaign",
        "from judging.models import Topic\nlist(Topic.objects.filter(judgments__grade__gte=1))",
        "judging_judgment",
    ),
    "a view counting judgments in an aggregate": (
        "judging.views.campaign",
        "from django.db.models import Count\nfrom judging.models import Topic\n"
        "list(Topic.objects.annotate(n=Count('judgments')))",
        "judging_judgment",
    ),
    "a view prefetching judgments": (
        "judging.views.campaign",
        "from judging.models import Topic\nlist(Topic.objects.prefetch_related('judgments'))",
        "judging_judgment",
    ),
    "a view reading through the default manager": (
        "judging.views.campaign",
        "from judging.models import Judgment\nlist(Judgment._default_manager.all())",
        "judging_judgment",
    ),
    "a template tag reading a topic's judgments": (
        "judging.templatetags.guidelines",
        "return [j.grade for j in topic.judgments.all()]",
        "judging_judgment",
    ),
}


@pytest.mark.parametrize("slip", SLIPS, ids=list(SLIPS))
def test_the_watch_reports_each_slip(slip, campaign, watched):
    module, code, table = SLIPS[slip]
    selected = run_as(
        "judging.selectors", "from judging.models import Topic\nreturn lambda c: Topic.objects.filter(collection=c)"
    )
    with contextlib.suppress(Exception):
        run_as(module, code, selected=selected, **campaign)
    found = watched.taken()
    assert any(module in line and table in line for line in found), found


def test_the_owners_own_writes_and_the_selectors_own_reads_pass(campaign, watched):
    pooled = (
        "topic.pool_items.filter(document=document).delete()\ntopic.pool_items.create(document=document, best_rank=9)"
    )
    run_as("judging.services.pools", pooled, **campaign)
    run_as("judging.selectors", "from judging.models import Topic\nlist(Topic.objects.filter(judgments__grade=1))")
    run_as("judging.services.topics", "topic.delete()", **campaign)  # its judgments go with it, as a cascade
    assert watched.taken() == []


def test_a_page_evaluating_a_selectors_queryset_is_the_selectors_read(campaign, watched):
    from judging.models import Judgment

    built = run_as("judging.selectors", "from judging.models import Judgment\nreturn Judgment.objects.all()")
    run_as("judging.views.campaign", "return list(built.filter(grade__gte=0))", built=built)
    assert watched.taken() == []
    assert Judgment.objects.count() == 2


def test_the_ownership_is_the_documented_table():
    ownership = Ownership.from_docs({"Judgment": "judging_judgment", "Topic": "judging_topic"})
    assert ownership.writers["judging_judgment"] == {"judging.services.judgments"}
    assert "judging.services.topics" in ownership.writers["judging_topic"]


def test_the_watch_is_installed_on_every_connection(statement_watch):
    from django.db import connection

    assert isinstance(statement_watch, StatementWatch)
    assert statement_watch in connection.execute_wrappers
    stamp_querysets()  # idempotent
