"""Limits on shared resources for the API: request rates per user and per address, and failed token attempts per
address. Each fails open (lets the request through, logged) when its counter store is unreachable, so a cache
outage never takes the API down with it. Rates come from settings.WORKBENCH_LIMITS, read at each request."""

from __future__ import annotations

import logging
import threading
import time

from django.conf import settings
from django.core.cache import caches
from rest_framework import exceptions
from rest_framework.authentication import TokenAuthentication
from rest_framework.throttling import AnonRateThrottle, UserRateThrottle

logger = logging.getLogger(__name__)


class OutageLog:
    """Logs an outage of the counter store once with its traceback, then at most one line every `every` seconds
    with how many requests went through unthrottled meanwhile, and once when the store answers again: a Redis
    outage under load wrote one traceback per request (598 in 20 s)."""

    def __init__(self, what: str, *, every: float = 60.0, clock=time.monotonic):
        self.what, self.every, self.clock = what, every, clock
        self.down_since: float | None = None
        self.last_logged = 0.0
        self.skipped = 0
        self.lock = threading.Lock()

    def failed(self) -> None:
        """Call from an `except` block: the store could not be reached for this request."""
        with self.lock:
            now = self.clock()
            if self.down_since is None:
                self.down_since, self.last_logged, self.skipped = now, now, 0
                logger.warning("%s: its cache cannot be reached (logged again at most every %.0f s)", self.what,
                               self.every, exc_info=True)  # fmt: skip
                return
            self.skipped += 1
            if now - self.last_logged >= self.every:
                logger.warning("%s: its cache still cannot be reached (%.0f s; %d requests since the last line)",
                               self.what, now - self.down_since, self.skipped)  # fmt: skip
                self.last_logged, self.skipped = now, 0

    def answered(self) -> None:
        """The store answered: an outage, if one was logged, is over."""
        if self.down_since is None:
            return
        with self.lock:
            if self.down_since is not None:
                logger.warning("%s: its cache answers again after %.0f s", self.what, self.clock() - self.down_since)
                self.down_since = None


THROTTLE_OUTAGE = OutageLog("API throttling skipped")
TOKEN_COUNT_OUTAGE = OutageLog("wrong tokens not counted")


class _FailOpen:
    limit_name = ""

    def get_rate(self):
        return settings.WORKBENCH_LIMITS[self.limit_name]

    def allow_request(self, request, view):
        self.cache = caches["throttle"]
        try:
            allowed = super().allow_request(request, view)
        except Exception:
            THROTTLE_OUTAGE.failed()
            return True
        if getattr(self, "key", None) is not None:  # the store was read (an anonymous throttle skips a user)
            THROTTLE_OUTAGE.answered()
        return allowed


class AddressThrottle(_FailOpen, AnonRateThrottle):
    """Anonymous requests, per client address."""

    limit_name = "api_anonymous_rate"


class AccountThrottle(_FailOpen, UserRateThrottle):
    """Authenticated requests, per user."""

    limit_name = "api_user_rate"


class ThrottledTokenAuthentication(TokenAuthentication):
    """Token authentication that answers 429 to an address after too many wrong tokens for a while, so tokens
    cannot be guessed at the server's expense. A valid token is never refused, whoever shares its address (a NAT
    is one guesser away from every colleague otherwise); only the wrong ones are."""

    def authenticate(self, request):
        try:
            return super().authenticate(request)
        except exceptions.AuthenticationFailed as wrong:
            address = request.META.get("REMOTE_ADDR", "")
            if self._count_failure(f"token-failures:{address}") > settings.WORKBENCH_LIMITS["token_failures"]:
                seconds = settings.WORKBENCH_LIMITS["lockout_seconds"]
                detail = "too many wrong tokens from this address; try later"
                raise exceptions.Throttled(wait=seconds, detail=detail) from wrong
            raise

    @staticmethod
    def _count_failure(key: str) -> int:
        """This wrong token's number among the address's recent ones (0 when the counter store is unreachable)."""
        store = caches["throttle"]
        try:
            store.add(key, 0, settings.WORKBENCH_LIMITS["lockout_seconds"])
            count = store.incr(key)
        except Exception:
            TOKEN_COUNT_OUTAGE.failed()
            return 0
        TOKEN_COUNT_OUTAGE.answered()
        return count
