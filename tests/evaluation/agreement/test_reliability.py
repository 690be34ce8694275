"""The per-assessor reliability table: gold accuracy against the adjudicated items (by hand), kappa with the
consensus equal to the stored agreement report, Dawid–Skene's accuracy, machine judges in rows of their own, flags
from judging.quality; the campaign page loads it, and it comes as CSV, JSON and from the API."""

from __future__ import annotations

import csv
import io

import pytest

from evaluation import services as evaluation_services
from evaluation.agreement import reliability
from evaluation.models import AgreementReport
from judging import services
from judging.machines import services as machine_judges
from judging.models import Judgment, PoolItem
from tests.api_clients import api_as
from tests.factories import make_collection, make_user

pytestmark = pytest.mark.django_db


@pytest.fixture
def judged():
    collection = make_collection(max_grade=3, topics=2, documents=8, runs=2, depth=5)
    ann, bob, admin = make_user("assessor"), make_user("assessor"), make_user("admin")
    for topic in collection.topics.all():
        for person in (ann, bob):
            services.assignment_create(assessor=person, topic=topic)
    items = list(PoolItem.objects.filter(topic__collection=collection).select_related("topic", "document"))
    for index, item in enumerate(items):
        services.judgment_record(assessor=ann, topic=item.topic, document=item.document, grade=index % 4,
                                 seconds_spent=8.0)  # fmt: skip
        services.judgment_record(assessor=bob, topic=item.topic, document=item.document, grade=(index + 1) % 4,
                                 seconds_spent=20.0)  # fmt: skip
    for item, grade in zip(items[:4], (0, 1, 1, 3), strict=True):  # ann gave 0, 1, 2, 3: three of four exact
        services.adjudication_record(topic=item.topic, document=item.document, grade=grade, adjudicator=admin)
    judge = machine_judges.machine_judge_create(collection=collection, name="bm25", provider="lexical")
    machine_judges.machine_judge_run(judge=judge)
    evaluation_services.collection_recompute(collection_id=collection.id)
    return collection, ann, bob, admin


def test_each_assessors_row_matches_the_figures_it_is_made_of(judged):
    collection, ann, bob, _ = judged
    rows = {row.assessor: row for row in reliability.assessor_reliability(collection=collection, reveal=True)}
    assert [row.kind for row in rows.values()].count("machine") == 1
    mine = rows[ann.username]
    assert (mine.gold_items, mine.gold_accuracy) == (4, 0.75) and mine.median_seconds == 8.0
    assert rows[bob.username].median_seconds == 20.0
    stored = AgreementReport.objects.get(collection=collection, topic__isnull=True).report["against_consensus"]
    assert mine.consensus_kappa == stored[str(ann.pk)]["cohen_kappa"]
    assert 0 <= mine.dawid_skene_accuracy <= 1
    assert rows[next(name for name, row in rows.items() if row.kind == "machine")].advisory is True


def test_the_campaign_page_loads_the_table_and_it_comes_as_csv_json_and_api(judged, client):
    collection, ann, _, admin = judged
    client.force_login(admin)
    assert 'hx-get="/results/' in client.get(f"/judging/collections/{collection.id}/").content.decode()
    partial = client.get(f"/results/{collection.id}/reliability/", HTTP_HX_REQUEST="true").content.decode()
    assert 'id="reliability-table"' in partial and f'data-assessor="{ann.username}"' in partial
    table = list(
        csv.DictReader(io.StringIO(client.get(f"/results/{collection.id}/reliability/?format=csv").content.decode()))
    )
    assert {row["assessor"] for row in table} >= {ann.username} and table[0]["judgments"]
    body = client.get(f"/results/{collection.id}/reliability/?format=json").json()
    api = api_as(make_user("researcher")).get(f"/api/collections/{collection.id}/reliability/").json()
    assert len(body["assessors"]) == len(api["assessors"]) == 3


def test_each_assessors_agreement_over_time_is_drawn(judged, client):
    collection, ann, _, admin = judged
    series = reliability.agreement_over_time(collection=collection, reveal=True)
    assert set(series) >= {ann.username, "bm25"} and all(0 <= s <= 1 for _, s in series[ann.username] if s is not None)
    client.force_login(admin)
    drawn = client.get(f"/results/{collection.id}/plots/reliability.svg")
    assert drawn.status_code == 200 and drawn["Content-Type"].startswith("image/svg")


def test_each_assessors_grades_over_time_are_drawn(judged, client):
    collection, ann, _, admin = judged
    series = reliability.relevant_over_time(collection=collection, reveal=True)
    labels = Judgment.objects.filter(assessor=ann).order_by("created_at", "id").values_list("grade", flat=True)
    first_block = list(labels[:20])
    threshold = collection.relevance_threshold
    assert series[ann.username][0] == (0, sum(g >= threshold for g in first_block) / len(first_block))
    client.force_login(admin)
    drawn = client.get(f"/results/{collection.id}/plots/reliability-grades.svg")
    assert drawn.status_code == 200 and drawn["Content-Type"].startswith("image/svg")


def test_a_gold_assessors_labels_are_gold_for_everyone_else(judged):
    collection, ann, bob, _ = judged
    collection = services.collection_settings_update(collection=collection, gold_assessors=[ann])
    rows = {row.assessor: row for row in reliability.assessor_reliability(collection=collection, reveal=True)}
    # bob gave (index + 1) % 4 where ann gave index % 4: never the same grade; on the 4 adjudicated items gold is
    # the adjudication (0 1 1 3), which bob's 1 2 3 0 never meets either. Every item is gold for bob now.
    judged_items = PoolItem.objects.filter(topic__collection=collection).count()
    assert (rows[bob.username].gold_items, rows[bob.username].gold_accuracy) == (judged_items, 0.0)
    assert rows[ann.username].gold_items == 0  # a reference is not measured against itself
