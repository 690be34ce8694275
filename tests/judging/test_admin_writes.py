"""The Django admin writes only through the services: a delete or change there marks the topics it touches stale,
exactly as the same change from a page would, and derived rows and history cannot be edited at all."""

from __future__ import annotations

import pytest
from django.contrib import admin
from django.contrib.auth import get_user_model
from django.test import Client, RequestFactory

from evaluation import services as evaluation_services
from judging import services
from judging.admin import ServiceAdmin
from judging.models import Adjudication, Judgment, JudgmentHistory, Ranking
from tests.factories import make_collection, make_user

# Third-party apps' own bookkeeping, written by those apps: not entities of the workbench.
THIRD_PARTY = {"axes"}
# Rows that only the recompute derives, or that are append-only: nothing may add, change or delete them here.
NEVER_WRITTEN = {
    "judging.JudgmentHistory",
    "judging.Job",
    "evaluation.TopicState",
    "evaluation.TopicValues",
    "evaluation.RunAggregates",
    "evaluation.TopicAgreement",
    "auth.User",
    "auth.Group",
    "authtoken.TokenProxy",
}


def _superuser_request():
    request = RequestFactory().get("/admin/")
    request.user = get_user_model()(is_superuser=True, is_staff=True, is_active=True)
    return request


def admin_writes_around_services(registry=None) -> list[str]:
    """Each registered model admin that could write without a service: not a ServiceAdmin, a permission granted
    without the service that carries it out, an inline that writes, or a derived table that is writable."""
    request, problems = _superuser_request(), []
    for model, model_admin in (admin.site._registry if registry is None else registry).items():
        label = model._meta.label
        if model._meta.app_label in THIRD_PARTY:
            continue
        if not isinstance(model_admin, ServiceAdmin):
            problems.append(f"{label}: {type(model_admin).__name__} is not a ServiceAdmin")
            continue
        granted = {
            "add": model_admin.has_add_permission(request),
            "change": model_admin.has_change_permission(request),
            "delete": model_admin.has_delete_permission(request),
        }
        for action, allowed in granted.items():
            service = {"add": "create", "change": "change", "delete": "delete"}[action]
            if allowed and getattr(model_admin, f"{service}_through") is None:
                problems.append(f"{label}: {action} allowed with no {service}_through")
        if label in NEVER_WRITTEN and any(granted.values()):
            problems.append(f"{label}: derived or append-only, yet {sorted(a for a, g in granted.items() if g)}")
        for inline in model_admin.get_inline_instances(request, obj=model()):
            if (
                inline.has_add_permission(request, None)
                or inline.has_change_permission(request)
                or (inline.can_delete and inline.has_delete_permission(request))
            ):
                problems.append(f"{label}: inline {type(inline).__name__} writes {inline.model._meta.label}")
    return problems


def test_no_model_admin_writes_around_its_service():
    assert admin_writes_around_services() == []


def test_the_registry_check_catches_a_plain_model_admin_or_a_writable_derived_table():
    registry = {**admin.site._registry, Judgment: admin.ModelAdmin(Judgment, admin.site)}
    assert admin_writes_around_services(registry) == ["judging.Judgment: ModelAdmin is not a ServiceAdmin"]

    class Writable(ServiceAdmin):
        delete_through = staticmethod(lambda request, obj: obj.delete())

    registry = {**admin.site._registry, JudgmentHistory: Writable(JudgmentHistory, admin.site)}
    assert admin_writes_around_services(registry) == ["judging.JudgmentHistory: derived or append-only, yet ['delete']"]


pytestmark = pytest.mark.django_db


@pytest.fixture
def judged():
    """A collection with a judgment and an adjudication on topic 1, every topic freshly computed."""
    collection = make_collection(topics=2)
    topic = collection.topics.get(number="1")
    assessor, admin_user = make_user(), make_user("admin")
    services.assignment_create(assessor=assessor, topic=topic)
    documents = [item.document for item in topic.pool_items.order_by("id")[:2]]
    services.judgment_record(assessor=assessor, topic=topic, document=documents[0], grade=2)
    services.adjudication_record(topic=topic, document=documents[1], grade=3, adjudicator=admin_user)
    evaluation_services.collection_recompute(collection_id=collection.id)
    client = Client()
    client.force_login(admin_user)
    assert client.get(f"/api/collections/{collection.id}/status/").json()["fresh"] is True
    return collection, topic, client


def _stale_numbers(client, collection) -> tuple[bool, list[str]]:
    status = client.get(f"/api/collections/{collection.id}/status/").json()
    return status["fresh"], sorted(t["topic"] for t in status["topics"] if not t["fresh"])


def _admin_delete(client, obj) -> None:
    meta = obj._meta
    response = client.post(f"/admin/{meta.app_label}/{meta.model_name}/{obj.pk}/delete/", {"post": "yes"})
    assert response.status_code == 302, response.content[:500]
    assert not type(obj).objects.filter(pk=obj.pk).exists()


@pytest.mark.parametrize(
    ("what", "stale"),
    [
        ("adjudication", ["1"]),
        ("judgment", ["1"]),
        ("ranking", ["1"]),
        ("run", ["1", "2"]),
        ("document", ["1"]),
        ("topic", ["2"]),
    ],
)
def test_an_admin_delete_marks_the_affected_topics_stale_in_the_status_api(judged, what, stale):
    collection, topic, client = judged
    target = {
        "adjudication": lambda: Adjudication.objects.get(topic=topic),
        "judgment": lambda: Judgment.objects.get(topic=topic),
        "ranking": lambda: Ranking.objects.filter(topic=topic).first(),
        "run": lambda: collection.runs.first(),
        "document": lambda: Judgment.objects.get(topic=topic).document,
        "topic": lambda: topic,
    }[what]()
    _admin_delete(client, target)
    assert _stale_numbers(client, collection) == (False, stale)


def test_an_admin_change_of_an_evaluation_setting_marks_every_topic_stale(judged):
    collection, _, client = judged
    url = f"/admin/judging/collection/{collection.pk}/change/"
    form = client.get(url).context["adminform"].form
    data = {name: value for name, value in form.initial.items() if value is not None}
    data.update(relevance_threshold=2, measures='["P@5", "ndcg_cut.10"]', name=collection.name)
    data.update({key: "" for key in ("primary_assessor", "collection_size") if data.get(key) is None})
    for prefix in ("grades",):
        data.update({f"{prefix}-TOTAL_FORMS": 0, f"{prefix}-INITIAL_FORMS": 0})
    response = client.post(url, data)
    assert response.status_code == 302, response.context["adminform"].form.errors if response.context else ""
    collection.refresh_from_db()
    assert collection.measures == ["P@5", "nDCG@10"]  # stored canonical, whatever the spelling typed
    assert _stale_numbers(client, collection) == (False, ["1", "2"])


def test_history_and_derived_rows_cannot_be_deleted_in_the_admin(judged):
    _, topic, client = judged
    entry = JudgmentHistory.objects.filter(topic=topic).first()
    response = client.post(f"/admin/judging/judgmenthistory/{entry.pk}/delete/", {"post": "yes"})
    assert response.status_code == 403 and JudgmentHistory.objects.filter(pk=entry.pk).exists()
    from evaluation.models import TopicState

    state = TopicState.objects.get(topic=topic)
    assert client.post(f"/admin/evaluation/topicstate/{state.pk}/change/", {"dirty": "on"}).status_code == 403


def test_a_collection_deleted_in_the_admin_takes_its_search_log_stores_with_it(
    judged, django_capture_on_commit_callbacks
):
    from evaluation.online.models import SearchLog
    from evaluation.online.services import search_log_create

    collection, _, client = judged
    log = search_log_create(collection=collection, name="traffic")
    log.store_path.mkdir(parents=True)
    (log.store_path / "part.parquet").write_bytes(b"x")
    with django_capture_on_commit_callbacks(execute=True):
        _admin_delete(client, collection)
    assert not SearchLog.objects.exists() and not log.store_path.exists()
