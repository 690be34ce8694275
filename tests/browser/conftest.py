"""Playwright driving Debian's chromium (never a downloaded browser); skipped when chromium is missing, except in CI."""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

import pytest

from tests.conftest import IN_CI

QUIET_FOR_S = 0.5
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"
CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def chromium_path() -> str | None:
    return os.environ.get("CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.fixture(scope="session")
def browser():
    path = chromium_path()
    if path is None:
        message = "needs Debian's chromium (apt-get install chromium; .ci/run installs it)"
        if IN_CI:
            pytest.fail(message + " -- CI=true, so this is a failure, not a skip")
        pytest.skip(message)
    # Playwright's sync API runs an event loop in this thread; the test's own ORM calls are still synchronous.
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        instance = playwright.chromium.launch(executable_path=path, args=CHROMIUM_FLAGS)
        yield instance
        instance.close()


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.set_default_timeout(10_000)
    yield page
    context.close()
    _wait_for_the_live_server_to_go_quiet()


def _wait_for_the_live_server_to_go_quiet(timeout_s: float = 15.0) -> None:
    """A save the page sent just before the test ended may still be running in the live server's thread (and its
    eager recompute with it); the teardown's TRUNCATE must not race it, or PostgreSQL reports a deadlock."""
    from django.db import connection

    if connection.vendor != "postgresql":
        return  # SQLite's live server shares the test's connection: nothing can run beside the teardown.
    deadline = time.monotonic() + timeout_s
    quiet_since = None
    with connection.cursor() as cursor:
        while time.monotonic() < deadline:
            cursor.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()"
                " AND state IN ('active', 'idle in transaction')"
            )
            if cursor.fetchone()[0]:
                quiet_since = None
            elif quiet_since is None:
                quiet_since = time.monotonic()
            # A request runs several transactions (a save, then its in-process recompute and agreement): quiet
            # must last a moment, not just fall between two of them.
            elif time.monotonic() - quiet_since >= QUIET_FOR_S:
                return
            time.sleep(0.05)


@pytest.fixture
def screenshot():
    ARTIFACTS.mkdir(exist_ok=True)

    def take(page, name: str) -> Path:
        path = ARTIFACTS / f"{name}.png"
        page.screenshot(path=str(path), full_page=True)
        return path

    return take


def log_in(page, live_server, username, password="pw-for-tests-123"):
    page.goto(f"{live_server.url}/accounts/login/")
    page.fill("#id_username", username)
    page.fill("#id_password", password)
    page.click("button[type=submit]")
