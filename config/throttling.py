"""Limits on shared resources for the API: request rates per user and per address, and failed token attempts per
address. Each fails open (lets the request through, logged) when its counter store is unreachable, so a cache
outage never takes the API down with it. Rates come from settings.WORKBENCH_LIMITS, read at each request."""

from __future__ import annotations

import logging

from django.conf import settings
from django.core.cache import caches
from rest_framework import exceptions
from rest_framework.authentication import TokenAuthentication
from rest_framework.throttling import AnonRateThrottle, UserRateThrottle

logger = logging.getLogger(__name__)


class _FailOpen:
    limit_name = ""

    def get_rate(self):
        return settings.WORKBENCH_LIMITS[self.limit_name]

    def allow_request(self, request, view):
        self.cache = caches["throttle"]
        try:
            return super().allow_request(request, view)
        except Exception:
            logger.warning("API throttling skipped: its cache cannot be reached", exc_info=True)
            return True


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
            return store.incr(key)
        except Exception:
            logger.warning("could not count a wrong token", exc_info=True)
            return 0
