"""API clients for tests: one per role, authenticated by token as scripts are."""

from __future__ import annotations

from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from tests.factories import make_user


def api_as(user) -> APIClient:
    client = APIClient()
    if user is not None:
        client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.get_or_create(user=user)[0].key}")
    return client


def role_clients() -> dict[str, APIClient]:
    """{"admin", "researcher", "assessor", "anonymous"} -> a client acting as a fresh user of that role."""
    clients = {role: api_as(make_user(role)) for role in ("admin", "researcher", "assessor")}
    clients["anonymous"] = APIClient()
    return clients
