"""Admins manage people in the browser: create a user in a role (an invitation link lets them choose a password),
change a role, deactivate, and hand out a password-reset link. Everyone has an account page with their API token."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth import get_user_model
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST

from judging import selectors, services
from judging.forms import UserCreateForm
from judging.models import ROLES
from judging.permissions import admin_required, user_roles

User = get_user_model()


def _absolute(request: HttpRequest, path: str) -> str:
    return request.build_absolute_uri(path)


@admin_required
def people(request: HttpRequest) -> HttpResponse:
    """Everyone with an account (imported qrels assessors apart), with their role; the form that adds a person."""
    form = UserCreateForm(request.POST or None)
    link = None
    if request.method == "POST" and form.is_valid():
        try:
            user, path = services.user_invite(**form.cleaned_data)
        except ValidationError as error:
            form.add_error(None, error)
        else:
            link = _absolute(request, path)
            messages.success(request, f"{user.username} added as {form.cleaned_data['role']}.")
            form = UserCreateForm()
    # Accounts that stand for labels (imported qrels, machine judges) are not people: they never log in.
    users = User.objects.exclude(username__startswith="qrels:").exclude(username__startswith="machine:")
    users = users.prefetch_related("groups").order_by("username")
    rows = [(user, sorted(user_roles(user))) for user in users]
    context = {"form": form, "rows": rows, "link": link, "role_choices": ROLES, "lockouts": selectors.login_lockouts()}
    return render(request, "judging/people.html", context)


@admin_required
@require_POST
def lockout_lift(request: HttpRequest) -> HttpResponse:
    """Lifts one login lockout before it expires."""
    username, address = request.POST.get("username", ""), request.POST.get("ip_address", "")
    services.lockout_lift(username=username, ip_address=address)
    messages.success(request, f"The lockout of {username} from {address} is lifted.")
    return redirect("judging:people")


@admin_required
@require_POST
def person_update(request: HttpRequest, user_id: int) -> HttpResponse:
    """One action on one account: `role`, `deactivate`, `activate` or `reset` (a new one-time password link)."""
    user = get_object_or_404(User, pk=user_id)
    action = request.POST.get("action", "")
    try:
        if action == "role":
            confirmed = bool(request.POST.get("confirm"))
            services.user_role_set(user=user, role=request.POST.get("role", ""), by=request.user, confirmed=confirmed)
            messages.success(request, f"{user.username} is now {request.POST['role']}.")
        elif action in ("deactivate", "activate"):
            services.user_active_set(user=user, active=action == "activate", by=request.user)
            messages.success(request, f"{user.username} {action}d.")
        elif action == "reset":
            link = _absolute(request, services.password_link(user=user))
            messages.success(request, f"Send {user.username} this one-time link to set a new password: {link}")
        else:
            messages.error(request, "Unknown action.")
    except ValidationError as error:
        messages.error(request, "; ".join(error.messages))
    return redirect("judging:people")


@login_required
def account(request: HttpRequest) -> HttpResponse:
    """The user's own account: roles, the API token (and a button that replaces it), the password change link."""
    if request.method == "POST" and request.POST.get("action") == "regenerate":
        if not request.POST.get("confirm"):
            messages.error(request, "Tick the box first: the old token stops working at once.")
            return redirect("account")
        services.token_regenerate(user=request.user)
        messages.success(request, "A new API token was made; the old one no longer works.")
        return redirect("account")
    context = {"token": services.token_for(user=request.user), "user_roles": sorted(user_roles(request.user))}
    return render(request, "registration/account.html", context)


class SetPasswordView(auth_views.PasswordResetConfirmView):
    """An invitation's or a reset's link: the page says whose password it sets (an invitee learns their username
    here), and a deactivated account's outstanding link no longer works."""

    def get_user(self, uidb64):
        user = super().get_user(uidb64)
        return user if user is not None and user.is_active else None

    def form_valid(self, form):
        messages.success(self.request, f"Your password is set. Log in as {form.user.username}.")
        return super().form_valid(form)
