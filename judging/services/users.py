"""Writes of people and their access: users in a role (with a password or a one-time invitation link),
roles, deactivation, password links and API tokens."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.contrib.auth.tokens import default_token_generator
from django.core.exceptions import ValidationError
from django.db import transaction
from django.urls import reverse
from django.utils.encoding import force_bytes
from django.utils.http import urlsafe_base64_encode
from rest_framework.authtoken.models import Token

from judging.core.identifiers import identifier, identifier_problem
from judging.models import ROLE_ADMIN, ROLES

User = get_user_model()


def username_checked(username: str) -> str:
    """The username in its one form (`judging.core.identifiers`: NFKC, so fullwidth "ａｌｉｃｅ" is "alice"), or a
    ValidationError naming why it cannot be one (invisible or control characters, mixed look-alike scripts)."""
    normal = identifier(username.strip())
    reason = identifier_problem(normal) if normal else "must not be empty"
    if reason:
        raise ValidationError({"username": f"{username!r} {reason}"})
    return normal


def user_create(*, username: str, password: str, role: str, email: str = "") -> User:
    """Creates a user in one of the roles (admin users are also staff and superusers, for the Django admin). The
    username is taken in its one form (`username_checked`); one that differs from a taken one only in letter case
    or spelling is refused as taken."""
    if role not in ROLES:
        raise ValidationError({"role": f"unknown role {role!r}; choose one of {', '.join(ROLES)}"})
    username = username_checked(username)
    if User.objects.filter(username__iexact=username).exists():
        raise ValidationError({"username": f"{username!r} is taken"})
    user = User.objects.create_user(username=username, password=password, email=email)
    if role == ROLE_ADMIN:
        user.is_staff = user.is_superuser = True
        user.save(update_fields=["is_staff", "is_superuser"])
    user.groups.add(Group.objects.get_or_create(name=role)[0])
    return user


def password_link(*, user) -> str:
    """A one-time link (path) where the user sets a password: valid until used, or until the password changes
    (Django's password-reset tokens); an invitation and a reset are the same link."""
    uid = urlsafe_base64_encode(force_bytes(user.pk))
    return reverse("password_reset_confirm", args=[uid, default_token_generator.make_token(user)])


@transaction.atomic
def user_invite(*, username: str, role: str, email: str = "") -> tuple[User, str]:
    """Creates a user in a role with no usable password; returns them and the link that lets them choose one."""
    user = user_create(username=username, password=None, role=role, email=email)
    return user, password_link(user=user)


def _other_active_admins(user) -> bool:
    return User.objects.filter(groups__name=ROLE_ADMIN, is_active=True).exclude(pk=user.pk).exists()


@transaction.atomic
def user_role_set(*, user, role: str, by=None, confirmed: bool = False) -> None:
    """Gives a user exactly one role (admins are also staff and superusers, for the Django admin). Refuses to take
    the admin role from the last active admin (nobody could manage the campaign any more), and an admin's own
    demotion unless `confirmed` (it locks them out of every admin page at once)."""
    if role not in ROLES:
        raise ValidationError({"role": f"unknown role {role!r}; choose one of {', '.join(ROLES)}"})
    # Two admins demoting each other at once must not both succeed: the admins' rows are locked in one order first.
    list(User.objects.select_for_update(of=("self",)).filter(groups__name=ROLE_ADMIN).order_by("pk").values("pk"))
    was_admin = user.groups.filter(name=ROLE_ADMIN).exists()
    if was_admin and role != ROLE_ADMIN:
        if user.is_active and not _other_active_admins(user):
            raise ValidationError({"role": f"{user.username} is the last active admin; make another admin first"})
        if by is not None and by.pk == user.pk and not confirmed:
            raise ValidationError({"role": "confirm that you give up your own admin role (every admin page closes)"})
    user.groups.remove(*Group.objects.filter(name__in=ROLES))
    user.groups.add(Group.objects.get_or_create(name=role)[0])
    user.is_staff = user.is_superuser = role == ROLE_ADMIN
    user.save(update_fields=["is_staff", "is_superuser"])


def user_active_set(*, user, active: bool, by) -> None:
    """Deactivates (or reactivates) an account: a deactivated user cannot log in nor use a token; their judgments
    stay. Nobody deactivates themselves, nor the last active admin (either would lock the campaign out)."""
    if user.pk == by.pk and not active:
        raise ValidationError({"user": "you cannot deactivate your own account"})
    if not active and user.groups.filter(name=ROLE_ADMIN).exists() and not _other_active_admins(user):
        raise ValidationError({"user": f"{user.username} is the last active admin; make another admin first"})
    user.is_active = active
    user.save(update_fields=["is_active"])


def token_regenerate(*, user) -> str:
    """Replaces the user's API token (the old one stops working at once); returns the new key."""
    with transaction.atomic():
        Token.objects.filter(user=user).delete()
        return Token.objects.create(user=user).key


def token_for(*, user) -> str:
    return Token.objects.get_or_create(user=user)[0].key


@transaction.atomic
def imported_assessors(*, names: set[str], mapped: dict, namespace: str) -> dict:
    """The user behind each assessor name of imported labels: the mapped account, or the name's imported user in
    `namespace` (made on first use, with no usable password, inactive: it stands for labels, never logs in)."""
    imported = {name: namespace + name for name in names if name not in mapped}
    found = {u.username: u for u in User.objects.filter(username__in=imported.values())}
    users = {name: mapped[name] for name in names if name in mapped}
    for name, username in sorted(imported.items()):
        user = found.get(username)
        if user is None:
            user = User(username=username, is_active=False)
            user.set_unusable_password()
            user.save()
        users[name] = user
    return users


def lockout_lift(*, username: str, ip_address: str) -> int:
    """Lifts a login lockout of one (account, address) pair before it expires (People page); returns the attempt
    records cleared. The address's count over all accounts goes with them."""
    from axes.utils import reset

    return reset(ip=ip_address, username=username) + reset(ip=ip_address)


def role_add(*, user, role: str) -> None:
    """Gives a user one more role beside theirs (a team member's `participant`, whatever else they do)."""
    if role not in ROLES or role == ROLE_ADMIN:
        raise ValidationError({"role": f"{role!r} is not a role one adds beside another"})
    user.groups.add(Group.objects.get_or_create(name=role)[0])
