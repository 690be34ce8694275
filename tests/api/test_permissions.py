"""Every API endpoint against every role: who may call it, and that everyone else gets 403 (401 when anonymous).

Researchers read the campaign and its results but never judge or change it; assessors judge, blind to results;
admins run the campaign. A new endpoint missing from ENDPOINTS fails `test_every_api_route_is_in_the_table`.
"""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import get_resolver
from rest_framework.authtoken.models import Token

from judging import services
from judging.jobs import runner as jobs
from judging.machines import services as machine_judges
from judging.models import Topic
from judging.rag.models.answers import Answer
from judging.rag.models.nuggets import Nugget
from judging.rag.services.answers import answer_runs_import
from judging.rag.services.nuggets import nugget_create
from judging.search_fetch import services as search_services
from judging.tracks import services as tracks
from tests.api_clients import role_clients
from tests.chat_server import outbound_allowed
from tests.factories import make_collection, make_user
from tests.rag_files import rag24
from tests.track_campaign import run_file, submitted, team

pytestmark = pytest.mark.django_db

ADMIN, RESEARCHER, ASSESSOR = "admin", "researcher", "assessor"
READERS = {ADMIN, RESEARCHER}


def _file():
    return {"run": SimpleUploadedFile("r.run", b"1 Q0 d1 1 1.0 mine\n")}


def _rag_file():
    return {"file": SimpleUploadedFile("rag.jsonl", rag24("rag", "1", ["d1"], [("An answer.", [0])]).encode())}


def _assignment():
    return {"nugget": Nugget.objects.latest("id").id, "label": "support"}


def _support():
    answer = Answer.objects.latest("id")
    return {"sentence": 0, "document": answer.references[0], "label": "full"}


# (method, path with {c} collection, {a} assignment, {j} job, request body, roles allowed)
def _run_file():
    return {"file": SimpleUploadedFile("run.txt", run_file("r").encode()), "run_type": "automatic", "priority": 1}


ENDPOINTS = [
    ("get", "/api/collections/", None, READERS),
    ("post", "/api/collections/", {"name": "x", "max_grade": 1}, {ADMIN}),
    ("get", "/api/collections/{c}/", None, READERS),
    ("patch", "/api/collections/{c}/", {"gold_rate": 0.1}, {ADMIN}),
    ("get", "/api/collections/{c}/topics/", None, READERS),
    ("get", "/api/collections/{c}/documents/", None, READERS),
    ("get", "/api/collections/{c}/runs/", None, READERS),
    ("post", "/api/collections/{c}/imports/", {"kind": "topics"}, {ADMIN}),
    ("get", "/api/collections/{c}/pool/", None, READERS),
    ("post", "/api/collections/{c}/pool/", {"strategy": "depth", "size": 2, "preview": True}, {ADMIN}),
    ("get", "/api/collections/{c}/assignments/", None, {ADMIN}),
    ("post", "/api/collections/{c}/assignments/", {"assessors_per_topic": 1}, {ADMIN}),
    ("patch", "/api/assignments/{a}/", {}, {ADMIN}),
    ("delete", "/api/assignments/{a}/", None, {ADMIN}),
    ("get", "/api/jobs/{j}/", None, {ADMIN}),
    ("get", "/api/judgments/", None, {ASSESSOR}),
    ("post", "/api/judgments/", {}, {ASSESSOR}),
    ("get", "/api/collections/{c}/status/", None, READERS),  # and the collection's own assessors (below)
    ("post", "/api/collections/{c}/recompute/", None, {ADMIN}),
    ("get", "/api/collections/{c}/qrels/", None, READERS),
    ("get", "/api/collections/{c}/results/", None, READERS),
    ("get", "/api/collections/{c}/estimate/", None, READERS),
    ("post", "/api/collections/{c}/estimate/draws/", {"count": 1}, {ADMIN}),
    ("get", "/api/collections/{c}/results/export/", None, READERS),
    ("get", "/api/collections/{c}/agreement/", None, READERS),
    ("get", "/api/collections/{c}/compare/?a=run0&b=run1", None, READERS),
    ("get", "/api/collections/{c}/pairs/", None, READERS),
    ("post", "/api/collections/{c}/trial/", _file, READERS),
    ("get", "/api/collections/{c}/machine-judges/", None, READERS),
    ("post", "/api/collections/{c}/machine-judges/", {"name": "bm", "provider": "lexical"}, {ADMIN}),
    ("get", "/api/machine-judges/{m}/", None, READERS),
    ("patch", "/api/machine-judges/{m}/", {"concurrency": 2}, {ADMIN}),
    ("post", "/api/machine-judges/{m}/preview/", {"topic": "1", "docno": "d1"}, {ADMIN}),
    ("post", "/api/machine-judges/{m}/runs/", {"limit": 1}, {ADMIN}),
    ("post", "/api/machine-judges/{m}/probes/", {"count": 1}, {ADMIN}),
    ("get", "/api/collections/{c}/search-endpoints/", None, READERS),
    (
        "post",
        "/api/collections/{c}/search-endpoints/",
        {"name": "s", "engine": "solr", "url": "http://127.0.0.1:9"},
        {ADMIN},
    ),
    ("get", "/api/search-endpoints/{e}/", None, READERS),
    ("patch", "/api/search-endpoints/{e}/", {"depth": 50}, {ADMIN}),
    ("post", "/api/search-endpoints/{e}/try/", {"query": "q"}, {ADMIN}),
    ("get", "/api/search-endpoints/{e}/snapshots/", None, READERS),
    ("post", "/api/search-endpoints/{e}/snapshots/", {}, {ADMIN}),
    ("get", "/api/search-snapshots/compare/?before=0&after=0", None, READERS),
    ("get", "/api/collections/{c}/search-regressions/", None, READERS),
    ("post", "/api/collections/{c}/datasets/", {"dataset": "antique/test"}, {ADMIN}),
    ("get", "/api/machine-judges/{m}/labels/", None, READERS),
    ("post", "/api/jobs/{j}/cancel/", None, {ADMIN}),
    ("get", "/api/topics/{t}/queue/", None, {ASSESSOR}),
    ("get", "/api/collections/{c}/machine-judges/{m}/verification/", None, READERS),
    ("get", "/api/collections/{c}/reliability/", None, READERS),
    ("get", "/api/collections/{c}/preferences/", None, READERS),
    ("get", "/api/collections/{c}/standing/", None, READERS),
    ("get", "/api/collections/{c}/sources/", None, READERS),
    ("patch", "/api/collections/{c}/sources/{u}/", {"role": "advisory"}, {ADMIN}),
    ("get", "/api/collections/{c}/answer-runs/", None, READERS),
    ("post", "/api/collections/{c}/answer-runs/", _rag_file, {ADMIN}),
    ("get", "/api/topics/{t}/nuggets/", None, {ADMIN, ASSESSOR}),  # the topic's own assessors (assigned below)
    ("post", "/api/topics/{t}/nuggets/", {"text": "a fact", "importance": "vital"}, {ADMIN, ASSESSOR}),
    ("patch", "/api/nuggets/{n}/", {"importance": "vital"}, {ADMIN}),  # and the topic's assessors
    ("delete", "/api/nuggets/{n}/", None, {ADMIN}),
    ("post", "/api/answers/{r}/assignments/", _assignment, {ADMIN}),  # and the topic's assessors
    ("post", "/api/answers/{r}/support/", _support, {ADMIN}),
    ("post", "/api/machine-judges/{m}/nuggets/", {"work": "propose"}, {ADMIN}),
    ("get", "/api/collections/{c}/rag-leaderboard/", None, READERS),
    # A track's participants have their own matrix (tests/api/test_track_permissions.py): these are the other roles.
    ("get", "/api/collections/{c}/teams/", None, {ADMIN}),
    ("post", "/api/collections/{c}/teams/", {"name": "t", "members": ["nobody"]}, {ADMIN}),
    ("get", "/api/collections/{c}/teams/{g}/", None, {ADMIN}),
    ("put", "/api/collections/{c}/teams/{g}/", {"name": "t", "members": ["nobody"]}, {ADMIN}),
    ("get", "/api/collections/{c}/submissions/", None, {ADMIN}),
    ("post", "/api/collections/{c}/submissions/", _run_file, set()),  # an admin is in no team: refused too
    ("get", "/api/collections/{c}/submissions/{s}/", None, {ADMIN}),
    ("delete", "/api/collections/{c}/submissions/{s}/", None, set()),  # only the team withdraws its run
    ("post", "/api/collections/{c}/submissions/pool/", {"depths": {"1": 2}, "preview": True}, {ADMIN}),
    ("get", "/api/collections/{c}/submissions/{s}/report/", None, READERS),
]


def api_objects() -> dict[str, int]:
    """One object of each kind an API path names, by the letter the paths use ({c}, {a}, ...)."""
    collection = make_collection()
    assessor = make_user(ASSESSOR)
    assignment = services.assignment_create(assessor=assessor, topic=collection.topics.first())
    job = jobs.job_start(kind="recompute", task="x", arguments={}, collection=collection, created_by=make_user(ADMIN))
    judge = machine_judges.machine_judge_create(collection=collection, name="baseline", provider="lexical")
    with outbound_allowed("127.0.0.1:9"):
        endpoint = search_services.search_endpoint_create(
            collection=collection, name="es", engine="elasticsearch", url="http://127.0.0.1:9"
        )
    answer_runs_import(collection=collection, file="rag.jsonl", lines=[rag24("rag", "1", ["d1"], [("A.", [0])])])
    nugget = nugget_create(topic=assignment.topic, text="a fact")
    tracks.submission_settings_update(collection=collection, changes={"submissions": {"runs_per_team": 3}})
    alpha, member = team(collection, "alpha")
    submission = submitted(collection, member, run_file("alpha0", topics=("1", "2"), depth=3))
    ids = {"c": collection.id, "a": assignment.id, "j": job.id, "m": judge.id, "t": assignment.topic_id,
           "e": endpoint.id, "n": nugget.id, "r": Answer.objects.get(run__tag="rag").id,
           "s": submission.id, "g": alpha.id}  # fmt: skip
    return ids | {"u": assessor.id}


@pytest.fixture
def world():
    return api_objects()


@pytest.mark.parametrize("role", [ADMIN, RESEARCHER, ASSESSOR, "anonymous"])
@pytest.mark.parametrize(("method", "path", "body", "allowed"), ENDPOINTS, ids=[f"{m} {p}" for m, p, *_ in ENDPOINTS])
def test_each_endpoint_admits_exactly_its_roles(world, role, method, path, body, allowed):
    client = role_clients()[role]
    if "{t}" in path and role == ASSESSOR:  # a topic's queue is its own assessors': this one is assigned it
        token = client._credentials["HTTP_AUTHORIZATION"].split()[1]
        services.assignment_create(assessor=Token.objects.get(key=token).user, topic=Topic.objects.get(pk=world["t"]))
    url = path.format(**world)
    data = body() if callable(body) else body
    response = getattr(client, method)(url, data, format="multipart" if callable(body) else "json")
    if role in allowed:
        assert response.status_code not in (401, 403, 404, 405), (role, url, response.content[:300])
        assert response.status_code < 500
    elif role == "anonymous":
        assert response.status_code == 401, (url, response.status_code)
        assert response.json()["error"]["code"] == "not_authenticated"
    else:
        assert response.status_code == 403, (role, url, response.status_code)
        assert response.json()["error"]["code"] == "permission_denied"


def test_every_api_route_is_in_the_table():
    tabled = {path.split("?")[0].replace("{c}", "<int:collection_id>") for _, path, *_ in ENDPOINTS}
    tabled = {p.replace("{a}", "<int:assignment_id>").replace("{j}", "<int:job_id>") for p in tabled}
    tabled = {p.replace("{m}", "<int:judge_id>").replace("{t}", "<int:topic_id>") for p in tabled}
    tabled = {p.replace("{e}", "<int:endpoint_id>") for p in tabled}
    tabled = {p.replace("{u}", "<int:account_id>") for p in tabled}
    tabled = {p.replace("{n}", "<int:nugget_id>").replace("{r}", "<int:answer_id>") for p in tabled}
    tabled = {p.replace("{s}", "<int:submission_id>").replace("{g}", "<int:team_id>") for p in tabled}
    public = {"api/schema/", "api/docs/"}

    def flattened(patterns, prefix=""):
        for pattern in patterns:
            if hasattr(pattern, "url_patterns"):  # an include(): each app owns its API URLs
                yield from flattened(pattern.url_patterns, prefix + str(pattern.pattern))
            else:
                yield prefix + str(pattern.pattern)

    routes = {
        "/" + route
        for route in flattened(get_resolver().url_patterns)
        if route.startswith("api/") and route not in public and "(?P<path>" not in route
    }
    assert len(routes) >= 20
    assert routes - tabled == set()


def test_an_assessor_reads_the_status_of_their_own_collection_only(world):
    from rest_framework.test import APIClient

    from judging.models import Assignment

    own = APIClient()
    own.force_authenticate(Assignment.objects.get(pk=world["a"]).assessor)
    assert own.get(f"/api/collections/{world['c']}/status/").status_code == 200
    other = make_collection()
    assert own.get(f"/api/collections/{other.id}/status/").status_code == 403
