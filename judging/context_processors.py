"""What every page's navigation needs: the user's roles (links are shown by role) and the collections to switch
between (for admins and researchers)."""

from __future__ import annotations

from judging.models import ROLE_ADMIN, ROLE_RESEARCHER, Collection
from judging.permissions import user_roles

SWITCHER_LIMIT = 50


def navigation(request) -> dict:
    roles = user_roles(getattr(request, "user", None))
    collections = []
    if roles & {ROLE_ADMIN, ROLE_RESEARCHER}:
        collections = list(Collection.objects.order_by("name").values("id", "name")[:SWITCHER_LIMIT])
    return {"roles": roles, "nav_collections": collections}
