"""Hostile or careless input never gets a 5xx: NUL characters in any query parameter, JSON nested deeply, NUL inside
JSON values; errors under /api/ are always the JSON shape, pages get a styled page with a way back."""

from __future__ import annotations

import json

import pytest

from tests.api.test_permissions import ENDPOINTS, api_objects
from tests.api_clients import api_as
from tests.factories import make_user

pytestmark = pytest.mark.django_db

NUL_PARAMETERS = "docno=%00&topic=%00&number=%00&a=%00&b=%00&topics=%00&runs=%00&measure=%00&source=%00&assessor=%00"
DEEP_JSON = '{"a":' * 20_000 + "1" + "}" * 20_000
NUL_FIELDS = ("name", "text", "note", "query", "url", "role", "importance", "label", "measures", "assessors", "members")
NUL_JSON = json.dumps({field: "a\u0000b" for field in NUL_FIELDS} | {"measures": ["P@5\u0000"], "members": ["x\u0000"]})


@pytest.fixture
def world():
    """Every object the paths name exists, so a body reaches the route's own parsing and checks."""
    return api_objects(), api_as(make_user("admin"))


@pytest.mark.parametrize("path", sorted({p for m, p, *_ in ENDPOINTS if m == "get"}))
def test_a_nul_in_any_query_parameter_is_a_400_in_the_api_error_shape(world, path):
    ids, client = world
    url = path.format(**ids)
    response = client.get(url + ("&" if "?" in url else "?") + NUL_PARAMETERS)
    assert response.status_code == 400
    assert "NUL character" in response.json()["error"]["message"]


READS_NO_BODY = {"/api/collections/{c}/recompute/", "/api/jobs/{j}/cancel/"}
WRITES = sorted({(m, p) for m, p, *_ in ENDPOINTS if m in ("post", "patch", "put")})


@pytest.mark.parametrize(("method", "path"), WRITES, ids=[f"{m} {p}" for m, p in WRITES])
def test_deeply_nested_or_nul_holding_json_is_refused_without_a_5xx(world, method, path):
    """Each write route with its own method (a PUT parses its body as a PUT does)."""
    ids, client = world
    url = path.format(**ids)
    for body in (DEEP_JSON, NUL_JSON):
        response = client.generic(method.upper(), url, body, content_type="application/json")
        assert response.status_code < 500, (method, url, response.status_code, response.content[:200])
        if response.status_code < 300:  # a field the route does not take is ignored; one it takes holds no NUL
            assert body == NUL_JSON or path in READS_NO_BODY, (method, url, response.status_code)
            assert b"\\u0000" not in response.content, (method, url, response.content[:200])
        else:
            assert "error" in response.json()


def test_pages_answer_errors_with_a_styled_page_and_a_way_back(client):
    client.force_login(make_user("assessor"))
    missing = client.get("/judging/judge/999999/")
    assert missing.status_code == 404 and b"Go to your start page" in missing.content
    bad = client.get("/results/?x=%00")
    assert bad.status_code == 400 and b"NUL character" in bad.content


def test_an_unknown_api_url_and_a_missing_object_answer_json(world):
    _, client = world
    assert client.get("/api/nothing-here/").json()["error"]["code"] == "not_found"
    assert client.get("/api/collections/999999/").json()["error"]["status"] == 404


def test_the_schema_answers_json_when_asked_and_the_docs_page_runs_no_inline_script(client):
    as_json = client.get("/api/schema/?format=json")
    assert as_json["Content-Type"].startswith("application/vnd.oai.openapi+json") and as_json.json()["openapi"]
    assert client.get("/api/schema/?format=yaml").content.startswith(b"openapi:")
    docs = client.get("/api/docs/").content.decode()
    assert "<script>" not in docs.replace(" ", "") and "<script src=" in docs


def test_the_schema_describes_what_the_results_endpoints_answer(client):
    schema = client.get("/api/schema/?format=json").json()

    def answer(path):
        content = schema["paths"][path]["get"]["responses"]["200"]["content"]["application/json"]["schema"]
        name = content["$ref"].rsplit("/", 1)[-1]
        return schema["components"]["schemas"][name]["properties"]

    base = "/api/collections/{collection_id}/"
    assert {"runs", "measures", "qrels_version"} <= set(answer(base + "results/"))
    assert {"t_p_value", "bootstrap_ci_95", "topics"} <= set(answer(base + "compare/"))
    assert {"pairs", "correction"} <= set(answer(base + "pairs/"))
    assert {"statistics"} <= set(answer(base + "agreement/"))
    assert {"fresh", "stale_topics", "topics", "pages"} <= set(answer(base + "status/"))


@pytest.mark.parametrize("page", ["9223372036854775807", "0", "1000001", "١"])
def test_a_status_page_out_of_range_is_a_400_naming_the_parameter(world, page):
    ids, client = world
    response = client.get(f"/api/collections/{ids['c']}/status/?page={page}")
    assert response.status_code == 400 and "page" in response.json()["error"]["fields"]


@pytest.mark.parametrize("path", ["/api/collections/", "/results/", "/accounts/login/"])
def test_a_request_for_a_host_not_allowed_is_a_400_not_a_500(client, path):
    response = client.get(path, HTTP_HOST="evil.example", HTTP_REFERER="https://evil.example/x")
    assert response.status_code == 400


def _with_a_nul(value):
    return [f"{item}\x00" for item in value] if isinstance(value, list) else f"{value}\x00"


VALID_BODIES = [
    (method, path, body, field)
    for method, path, body, allowed in ENDPOINTS
    if method in ("post", "patch", "put") and isinstance(body, dict) and "admin" in allowed
    for field, value in body.items()
    if isinstance(value, str) or (isinstance(value, list) and value and all(isinstance(v, str) for v in value))
]


@pytest.mark.parametrize(
    ("method", "path", "body", "field"), VALID_BODIES, ids=[f"{m} {p} {f}" for m, p, _, f in VALID_BODIES]
)
def test_a_nul_in_any_text_field_of_a_valid_body_is_refused_never_stored(world, method, path, body, field):
    """The permission table's accepted body with a NUL put into one of its text fields: a 4xx in the error shape,
    never a 5xx (PostgreSQL cannot store one) and never a NUL kept."""
    ids, client = world
    url = path.format(**ids)
    response = client.generic(method.upper(), url, json.dumps(body | {field: _with_a_nul(body[field])}),
                              content_type="application/json")  # fmt: skip
    assert 400 <= response.status_code < 500, (method, url, field, response.status_code, response.content[:200])
    assert "error" in response.json()
