"""Limits a public deployment needs: login and token throttling with an expiring lockout, API rates, the
Content-Security-Policy, proxy headers believed only from the configured proxy, and no demo accounts with DEBUG off."""

from __future__ import annotations

import pytest
from axes.models import AccessAttempt
from django.core.management import CommandError, call_command
from django.test import Client
from rest_framework.test import APIClient

from tests.api_clients import api_as
from tests.factories import make_user

pytestmark = pytest.mark.django_db

PASSWORD = "pw-for-tests-123"


def log_in(client: Client, username: str, password: str, path: str = "/accounts/login/"):
    return client.post(path, {"username": username, "password": password})


def test_the_right_password_is_refused_after_ten_wrong_ones_until_the_lockout_expires(settings):
    user = make_user("assessor")
    client = Client()
    codes = [log_in(client, user.username, "wrong").status_code for _ in range(settings.AXES_FAILURE_LIMIT)]
    assert codes == [200] * (settings.AXES_FAILURE_LIMIT - 1) + [429]  # the form again, then the lockout
    locked = log_in(client, user.username, PASSWORD)
    assert locked.status_code == 429 and b"Too many wrong passwords" in locked.content
    AccessAttempt.objects.update(attempt_time="2000-01-01T00:00:00Z")  # the cool-off has passed
    assert log_in(client, user.username, PASSWORD).status_code == 302


def test_the_admin_login_is_throttled_like_the_login_page(settings):
    admin = make_user("admin")
    client = Client()
    for _ in range(settings.AXES_FAILURE_LIMIT):
        log_in(client, admin.username, "wrong", "/admin/login/?next=/admin/")
    assert log_in(client, admin.username, PASSWORD, "/admin/login/?next=/admin/").status_code == 429


def test_wrong_tokens_from_one_address_are_refused_for_a_while_and_valid_ones_never(settings):
    settings.WORKBENCH_LIMITS = {**settings.WORKBENCH_LIMITS, "token_failures": 3}
    guesser = APIClient()
    guesser.credentials(HTTP_AUTHORIZATION="Token " + "0" * 40)
    assert [guesser.get("/api/collections/").status_code for _ in range(3)] == [401, 401, 401]
    assert guesser.get("/api/collections/").status_code == 429
    colleague = api_as(make_user("researcher"))  # the same address (one NAT): a valid token still works
    assert colleague.get("/api/collections/").status_code == 200


def test_wrong_passwords_lock_the_account_from_that_address_only(settings):
    user = make_user("assessor")
    attacker, owner = Client(REMOTE_ADDR="203.0.113.9"), Client(REMOTE_ADDR="198.51.100.7")
    for _ in range(settings.AXES_FAILURE_LIMIT):
        log_in(attacker, user.username, "wrong")
    assert log_in(attacker, user.username, PASSWORD).status_code == 429
    assert log_in(owner, user.username, PASSWORD).status_code == 302  # the owner, elsewhere, is not locked out
    other = make_user("assessor")
    assert log_in(attacker, other.username, PASSWORD).status_code == 302  # nor is the address, for others


def test_an_address_guessing_across_accounts_hits_the_ceiling(settings):
    settings.WORKBENCH_LIMITS = {**settings.WORKBENCH_LIMITS, "address_failures": 6}
    attacker = Client(REMOTE_ADDR="203.0.113.10")
    for n in range(6):
        log_in(attacker, f"nobody{n}", "wrong")
    assert log_in(attacker, make_user("assessor").username, PASSWORD).status_code == 429
    assert log_in(Client(REMOTE_ADDR="198.51.100.8"), make_user("assessor").username, PASSWORD).status_code == 302


def test_an_admin_sees_and_lifts_a_lockout_on_the_people_page(settings):
    user = make_user("assessor")
    attacker = Client(REMOTE_ADDR="203.0.113.11")
    for _ in range(settings.AXES_FAILURE_LIMIT):
        log_in(attacker, user.username, "wrong")
    admin = Client(REMOTE_ADDR="198.51.100.9")
    admin.force_login(make_user("admin"))
    page = admin.get("/judging/people/").content.decode()
    assert f'data-lockout="{user.username}|203.0.113.11"' in page
    admin.post("/judging/people/lockouts/", {"username": user.username, "ip_address": "203.0.113.11"})
    assert log_in(attacker, user.username, PASSWORD).status_code == 302


def test_the_api_limits_requests_per_user(settings):
    settings.WORKBENCH_LIMITS = {**settings.WORKBENCH_LIMITS, "api_user_rate": "3/min"}
    client = api_as(make_user("researcher"))
    codes = [client.get("/api/collections/").status_code for _ in range(4)]
    assert codes == [200, 200, 200, 429]
    assert client.get("/api/collections/").json()["error"]["code"] == "throttled"


def test_every_page_carries_a_content_security_policy_without_inline_scripts(client):
    policy = client.get("/accounts/login/").headers["Content-Security-Policy"]
    assert "script-src 'self'" in policy and "unsafe-inline" not in policy.split("script-src")[1].split(";")[0]
    assert "frame-ancestors 'none'" in policy


def test_forwarded_headers_are_ignored_unless_from_a_trusted_proxy(client, settings):
    import ipaddress

    seen = {}

    def spy(request):
        from django.http import HttpResponse

        seen.update(secure=request.is_secure(), address=request.META["REMOTE_ADDR"])
        return HttpResponse()

    from config.security import TrustedProxyMiddleware

    middleware = TrustedProxyMiddleware(spy)
    from django.test import RequestFactory

    claim = {"HTTP_X_FORWARDED_PROTO": "https", "HTTP_X_FORWARDED_FOR": "203.0.113.9"}
    settings.TRUSTED_PROXY_NETWORKS = []
    middleware(RequestFactory().get("/", REMOTE_ADDR="198.51.100.7", **claim))
    assert seen == {"secure": False, "address": "198.51.100.7"}
    settings.TRUSTED_PROXY_NETWORKS = [ipaddress.ip_network("198.51.100.7")]
    middleware(RequestFactory().get("/", REMOTE_ADDR="198.51.100.7", **claim))
    assert seen == {"secure": True, "address": "203.0.113.9"}


def test_the_demo_refuses_its_public_accounts_with_debug_off(settings):
    settings.DEBUG = False
    with pytest.raises(CommandError, match="--allow-demo-accounts"):
        call_command("demo", no_serve=True)


def test_an_upload_over_the_limit_is_refused_before_its_body_is_read(client, settings):
    from django.core.files.uploadedfile import SimpleUploadedFile

    from judging.jobs.models import Job
    from tests.api_clients import api_as
    from tests.factories import make_collection

    settings.WORKBENCH_LIMITS = {**settings.WORKBENCH_LIMITS, "upload_bytes": 1000}
    collection = make_collection(runs=0)
    big = SimpleUploadedFile("big.run", b"1 Q0 d1 1 1.0 r\n" * 10_000)
    response = api_as(make_user("admin")).post(
        f"/api/collections/{collection.id}/imports/", {"kind": "runs", "file": big}, format="multipart"
    )
    assert response.status_code == 413 and "the limit is 1,000 bytes" in response.json()["error"]["message"]
    assert not Job.objects.exists()


def test_a_cant_judge_reason_over_200_characters_is_a_400_naming_it(client):
    from judging import services
    from tests.factories import make_collection

    collection = make_collection(topics=1, runs=1)
    topic = collection.topics.get()
    assessor = make_user("assessor")
    services.assignment_create(assessor=assessor, topic=topic)
    client.force_login(assessor)
    document = topic.pool_items.first().document_id
    response = client.post(f"/judging/judge/{topic.id}/{document}/", {"grade": "", "cannot_judge_reason": "x" * 201})
    assert response.status_code == 400 and list(response.json()["error"]["fields"]) == ["cannot_judge_reason"]


@pytest.mark.parametrize(("status", "traceback_kept"), [(400, False), (413, False), (404, False), (500, True)])
def test_a_refused_request_is_logged_without_a_traceback_and_a_server_error_with_one(status, traceback_kept):
    import logging
    import sys

    from config.logs import ExpectedRefusalsWithoutTraceback

    try:
        raise ValueError("request body exceeded the limit")
    except ValueError:
        record = logging.LogRecord("django.security", logging.ERROR, __file__, 1, "refused", None, sys.exc_info())
    record.status_code = status
    assert ExpectedRefusalsWithoutTraceback().filter(record)
    assert (record.exc_info is not None) == traceback_kept
