"""Who may do what over the API: admins run the campaign, researchers read results and qrels, assessors judge."""

from __future__ import annotations

from django.core.exceptions import PermissionDenied
from django.shortcuts import get_object_or_404
from rest_framework import permissions

from judging import selectors
from judging.models import ROLE_ADMIN, ROLE_ASSESSOR, ROLE_RESEARCHER, Assignment, Topic


def assigned_topic(user, topic_id: int) -> Topic:
    """The topic, with its collection, when it is assigned to this user; 404 for no such topic, refused otherwise."""
    topic = get_object_or_404(selectors.topics_with_settings(), pk=topic_id)
    if not Assignment.objects.filter(assessor=user, topic=topic).exists():
        raise PermissionDenied("this topic is not assigned to you")
    return topic


def user_roles(user) -> set[str]:
    """The user's roles, read once per request (kept on the user object the request carries)."""
    if not user or not user.is_authenticated:
        return set()
    cached = getattr(user, "_workbench_roles", None)
    if cached is None:
        cached = set(user.groups.values_list("name", flat=True))
        if user.is_staff:
            cached.add(ROLE_ADMIN)
        user._workbench_roles = cached
    return set(cached)


def sees_assessors(user, collection) -> bool:
    """Whether the user may see who judged what: admins always, researchers when the collection allows it."""
    return collection.researchers_see_assessors or ROLE_ADMIN in user_roles(user)


class IsAdmin(permissions.BasePermission):
    message = "only admins may do this"

    def has_permission(self, request, view) -> bool:
        return bool(request.user and request.user.is_staff)


class IsResearcherOrAdmin(permissions.BasePermission):
    """Results, qrels and agreement: researchers and admins; assessors stay blind to them."""

    message = "only researchers and admins may read results and qrels"

    def has_permission(self, request, view) -> bool:
        return bool(user_roles(request.user) & {ROLE_ADMIN, ROLE_RESEARCHER})


class ReadsOwnCollectionStatus(permissions.BasePermission):
    """A collection's progress: researchers and admins, and the assessors assigned one of its topics (the view's
    `collection_id`); nobody else learns its topic numbers or generations."""

    message = "only researchers, admins and the collection's own assessors may read its status"

    def has_permission(self, request, view) -> bool:
        if user_roles(request.user) & {ROLE_ADMIN, ROLE_RESEARCHER}:
            return True
        collection_id = view.kwargs.get("collection_id")
        return bool(
            request.user.is_authenticated
            and request.user.assignments.filter(topic__collection_id=collection_id).exists()
        )


def reads_or_changes_campaign(user, method: str) -> bool:
    """The one rule for a campaign's setup (sources, standing, search endpoints and snapshots), for its pages and its
    API alike: researchers and admins read it, only admins change it."""
    roles = user_roles(user)
    if method in permissions.SAFE_METHODS:
        return bool(roles & {ROLE_ADMIN, ROLE_RESEARCHER})
    return ROLE_ADMIN in roles


class ReadsForResearchersWritesForAdmins(permissions.BasePermission):
    message = "researchers may read; only admins may change the campaign"

    def has_permission(self, request, view) -> bool:
        return reads_or_changes_campaign(request.user, request.method)


class IsAssessor(permissions.BasePermission):
    message = "only assessors judge"

    def has_permission(self, request, view) -> bool:
        return ROLE_ASSESSOR in user_roles(request.user)


def role_required(*roles: str):
    """A page decorator: anonymous visitors go to the log-in page; a signed-in user without one of `roles` gets
    the styled 403 page (never the admin's log-in form). The same roles as the API's permissions."""
    from functools import wraps

    from django.contrib.auth.views import redirect_to_login
    from django.core.exceptions import PermissionDenied

    wanted = set(roles)

    def decorate(view):
        @wraps(view)
        def guarded(request, *args, **kwargs):
            if not request.user.is_authenticated:
                return redirect_to_login(request.get_full_path())
            if not user_roles(request.user) & wanted:
                raise PermissionDenied(f"this page is for {' and '.join(sorted(wanted))}s")
            return view(request, *args, **kwargs)

        return guarded

    return decorate


admin_required = role_required(ROLE_ADMIN)


def reads_for_researchers_writes_for_admins(view):
    """A page decorator with the API's `ReadsForResearchersWritesForAdmins` rule (`reads_or_changes_campaign`):
    anonymous visitors go to the log-in page; a researcher may GET, only an admin may POST."""
    from functools import wraps

    from django.contrib.auth.views import redirect_to_login
    from django.core.exceptions import PermissionDenied

    @wraps(view)
    def guarded(request, *args, **kwargs):
        if not request.user.is_authenticated:
            return redirect_to_login(request.get_full_path())
        if not reads_or_changes_campaign(request.user, request.method):
            raise PermissionDenied("researchers may read this page; only admins may change it")
        return view(request, *args, **kwargs)

    return guarded
