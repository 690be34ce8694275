"""Reads of a track: its submission settings, who is in which team, the current submissions, and the one place that
decides what a participant may see (`results_scope`, `report_refusal`)."""

from __future__ import annotations

from judging.models import ROLE_ADMIN, ROLE_RESEARCHER
from judging.permissions import user_roles
from judging.tracks.models import Submission, SubmissionSettings, SubmissionState, Team

SETTINGS = ("opens", "closes", "runs_per_team", "depth", "missing_documents", "released", "live_reports")


def submission_settings(collection) -> SubmissionSettings | None:
    """The collection's submission settings, or None when it takes no submissions."""
    try:
        return collection.submission_settings
    except SubmissionSettings.DoesNotExist:
        return None


def submission_settings_values(*, collection) -> dict:
    """The settings as the collection's API shows them: `submissions`, a dict, or None."""
    settings = submission_settings(collection)
    if settings is None:
        return {"submissions": None}
    values = {name: getattr(settings, name) for name in SETTINGS}
    for name in ("opens", "closes"):
        values[name] = values[name].isoformat() if values[name] else None
    return {"submissions": values}


def team_of(*, user, collection_id: int) -> Team | None:
    """The user's team in the collection: their `participant` role there, or None."""
    if not user or not user.is_authenticated:
        return None
    return Team.objects.filter(collection_id=collection_id, members__user=user).first()


def teams_of(*, user) -> list[Team]:
    """Every team the user is in, with its collection (the participant's home page)."""
    if not user or not user.is_authenticated:
        return []
    return list(Team.objects.filter(members__user=user).select_related("collection").order_by("collection__name"))


def collection_teams(*, collection) -> list[Team]:
    return list(Team.objects.filter(collection=collection).prefetch_related("members__user").order_by("name"))


def current_submissions(*, collection, team: Team | None = None):
    """The submissions that hold a run now (not replaced, not withdrawn), a team's or all, in pool priority order."""
    found = Submission.objects.filter(collection=collection, state=SubmissionState.CURRENT)
    if team is not None:
        found = found.filter(team=team)
    return found.select_related("team", "run").order_by("team__name", "priority", "tag")


def submitted_run_ids(*, collection_id: int) -> set[int]:
    """The runs the teams submitted and still stand by: what a report compares with and a participant's
    leaderboard lists (never an admin's imported run, never a withdrawn one)."""
    found = Submission.objects.filter(collection_id=collection_id, state=SubmissionState.CURRENT, run__isnull=False)
    return set(found.values_list("run_id", flat=True))


def organizes(user) -> bool:
    return ROLE_ADMIN in user_roles(user)


def results_scope(*, user, collection) -> str | None:
    """Which runs' results the user reads: "all" (researchers and admins), "submitted" (a participant of the
    collection once its results are released), or None (nothing: before the release, or not in the track). The
    one decision of a participant's access to results; pages and the API ask it."""
    if user_roles(user) & {ROLE_ADMIN, ROLE_RESEARCHER}:
        return "all"
    settings = submission_settings(collection)
    if settings is not None and settings.released and team_of(user=user, collection_id=collection.pk):
        return "submitted"
    return None


def report_refusal(*, user, submission: Submission) -> str | None:
    """Why the user may not read this submission's report, or None: admins read all; researchers every current run's
    (they read every run's results already); a team reads its own current runs' reports once results are released,
    or at once when the organizer allows live reports."""
    if organizes(user):
        return None
    if submission.state != SubmissionState.CURRENT or submission.run_id is None:
        return "this run was replaced or withdrawn: it has no report"
    if ROLE_RESEARCHER in user_roles(user):
        return None
    if team_of(user=user, collection_id=submission.collection_id) != submission.team:
        return "a team reads only its own runs' reports"
    settings = submission_settings(submission.collection)
    if settings is None or not (settings.released or settings.live_reports):
        return "reports are sent once the organizers release the results"
    return None
