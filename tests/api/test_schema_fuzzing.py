"""Schemathesis against our own OpenAPI schema: whatever an admin sends, malformed or not, no endpoint answers 5xx.

Every operation gets generated requests (valid and invalid bodies, odd query strings, unknown ids) as an admin,
the role that reaches the most code; a collection with a pool and judgments exists so that ids can hit.
"""

from __future__ import annotations

import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error

from config.wsgi import application
from judging import services
from tests.api_clients import api_as
from tests.factories import make_collection, make_user

# Real commits: the WSGI handler closes the connection after each request, as in production.
pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]


# Loading the schema needs no database: drf-spectacular builds it from the code.
schema = schemathesis.openapi.from_wsgi("/api/schema/", application)


@pytest.fixture
def campaign():
    """An admin's token and ids that exist: random ids would only ever meet the 404 in front of the real code."""
    collection = make_collection(topics=2, documents=6, runs=2, depth=4)
    assessor = make_user("assessor")
    topic = collection.topics.first()
    assignment = services.assignment_create(assessor=assessor, topic=topic)
    services.judgment_record(assessor=assessor, topic=topic, document=topic.pool_items.first().document, grade=1)
    token = api_as(make_user("admin"))._credentials["HTTP_AUTHORIZATION"]
    return token, {"collection_id": collection.id, "assignment_id": assignment.id}


@schema.parametrize()
@settings(
    max_examples=15,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow, HealthCheck.filter_too_much],
)
def test_no_request_makes_the_api_answer_a_server_error(case, campaign):
    token, ids = campaign
    for name in case.path_parameters or {}:
        if name in ids:
            case.path_parameters[name] = ids[name]
    case.call_and_validate(headers={"Authorization": token}, checks=[not_a_server_error])
