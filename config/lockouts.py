"""Login lockouts that an attacker cannot turn against others: django-axes counting wrong passwords per
(account, address) pair, with a ceiling per address across accounts.

- Ten wrong passwords (WORKBENCH_LOGIN_FAILURES) for one account from one address lock that pair only: the account
  still logs in from anywhere else, and the address still logs in to other accounts.
- An address that collects WORKBENCH_ADDRESS_FAILURES wrong passwords over every account (credential stuffing) is
  refused for the login page altogether until the cool-off ends.
Admins see the current lockouts on the People page and lift them there (`judging.services.lockout_lift`).
"""

from __future__ import annotations

from axes.handlers.database import AxesDatabaseHandler
from django.conf import settings
from django.db.models import Sum

# axes' lockout parameters, in the order get_failures reads them.
LOCKOUT_PARAMETERS = [["username", "ip_address"], "ip_address"]


class PairLockoutHandler(AxesDatabaseHandler):
    def get_failures(self, request, credentials=None) -> int:
        pair, address = (
            attempts.aggregate(n=Sum("failures_since_start"))["n"] or 0
            for attempts in self.get_user_attempts(request, credentials)
        )
        ceiling = settings.WORKBENCH_LIMITS["address_failures"]
        return max(pair, settings.AXES_FAILURE_LIMIT if address >= ceiling else 0)
