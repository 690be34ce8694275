"""Writes of a track: its submission settings, teams, each submission received (checked, receipted, stored as a
run), withdrawn or frozen, and the pool built from the submissions by priority."""

from __future__ import annotations

import hashlib
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.dateparse import parse_datetime

from judging import plugins
from judging.imports.core.problems import LISTED_PROBLEMS, Problems
from judging.imports.core.trec_lines import parse_run
from judging.imports.services import PLACEHOLDER
from judging.models import ROLE_PARTICIPANT, Document, Run, Topic
from judging.services.documents import documents_create
from judging.services.pools import PoolReport, pool_build_start, pool_build_steps
from judging.services.runs import run_delete, run_describe, run_store
from judging.services.users import role_add
from judging.tracks import core
from judging.tracks.models import (
    MissingDocuments,
    RunType,
    Submission,
    SubmissionSettings,
    SubmissionState,
    Team,
    TeamMember,
)
from judging.tracks.selectors import SETTINGS, submission_settings, team_of


class SubmissionRefused(Exception):
    """An upload or a withdrawal refused, nothing saved. `kind`: "invalid" (the file or questionnaire: `problems`,
    each {line, field, reason}), "taken" (another team's or the organizer's run has the tag), "closed" (outside the
    window, or no track), "limit" (the team's runs are all in), "not_participant"."""

    STATUS = {"invalid": 400, "taken": 409, "closed": 403, "limit": 403, "not_participant": 403}
    CODES = {400: "invalid", 403: "permission_denied", 409: "conflict"}  # the API's codes (`config.api_errors`)

    def __init__(self, kind: str, reason: str, problems: list[dict] | None = None, count: int = 0):
        super().__init__(reason)
        self.kind, self.reason, self.problems = kind, reason, problems or []
        self.count = count or len(self.problems)
        self.http_status = self.STATUS[kind]
        self.code = self.CODES[self.http_status]

    def as_dict(self) -> dict:
        """The refusal as the API and the page give it: the reason, and each problem {line, field, reason}."""
        return {"reason": self.reason, "problems": self.problems, "problem_count": self.count}


def submission_settings_update(*, collection, changes: dict) -> set[str]:
    """Takes `submissions` ({opens, closes, runs_per_team, depth, missing_documents, released, live_reports}, ISO
    times) out of `changes` and merges it into the collection's row, made on the first change (a collection's
    settings plug-in, `judging.plugins.settings_writers`); ValidationError names the field. `submissions: null`
    leaves the row as it is."""
    given = changes.pop("submissions", None)
    if given is None:
        return set()
    if not isinstance(given, dict):
        raise ValidationError({"submissions": "give an object of the submission settings"})
    unknown = sorted(set(given) - set(SETTINGS))
    if unknown:
        raise ValidationError({"submissions": f"not a submission setting: {', '.join(unknown)}"})
    values = {name: _time(name, value) if name in ("opens", "closes") else value for name, value in given.items()}
    row = submission_settings(collection) or SubmissionSettings(collection=collection)
    opens, closes = values.get("opens", row.opens), values.get("closes", row.closes)
    if opens and closes and closes <= opens:
        raise ValidationError({"submissions": "closes: must be after opens"})
    try:
        changed = plugins.settings_applied(row, values)
    except ValidationError as error:
        reasons = "; ".join(f"{name}: {' '.join(why)}" for name, why in error.message_dict.items())
        raise ValidationError({"submissions": reasons}) from error
    if changed or row._state.adding:
        row.save()
    return {f"submissions.{name}" for name in changed}


def _time(name: str, value) -> datetime | None:
    if value in (None, ""):
        return None
    moment = value if isinstance(value, datetime) else parse_datetime(str(value))
    if moment is None:
        raise ValidationError({"submissions": f"{name}: expected an ISO 8601 time, got {value!r}"})
    return moment if timezone.is_aware(moment) else timezone.make_aware(moment, timezone.utc)


def _team_checked(collection, name: str, members: list[str], team: Team | None = None) -> tuple[str, list]:
    """(the name stripped, the members' accounts) once both are valid for a team of `collection` (`team` itself
    excepted when it is renamed or its members changed); ValidationError names `name` or `members`."""
    name = name.strip()
    if not name:
        raise ValidationError({"name": "a team needs a name"})
    others = Team.objects.filter(collection=collection).exclude(pk=team.pk if team else None)
    if others.filter(name__iexact=name).exists():
        raise ValidationError({"name": f"the collection already has a team {name!r}"})
    if not members:
        raise ValidationError({"members": "name at least one member"})
    users = {user.username: user for user in get_user_model().objects.filter(username__in=members, is_active=True)}
    unknown = [username for username in members if username not in users]
    if unknown:
        raise ValidationError({"members": f"no active account {', '.join(map(repr, unknown))}: invite them first"})
    taken = TeamMember.objects.filter(collection=collection, user__in=users.values()).select_related("team", "user")
    held = ", ".join(f"{m.user.username} ({m.team.name})" for m in taken if team is None or m.team_id != team.pk)
    if held:
        raise ValidationError({"members": f"already in a team of this collection: {held}"})
    return name, list(users.values())


def _members_join(team: Team, users) -> None:
    for user in users:
        try:
            TeamMember.objects.create(team=team, collection=team.collection, user=user)
        except IntegrityError as error:  # another organizer put them in another team since the check
            raise ValidationError(
                {"members": f"{user.username} just joined another team of this collection"}
            ) from error
        role_add(user=user, role=ROLE_PARTICIPANT)


@transaction.atomic
def team_create(*, collection, name: str, members: list[str]) -> Team:
    """Creates a team of existing accounts (by username), each given the `participant` role; an account is in at
    most one team of a collection. ValidationError names `name` or `members`."""
    name, users = _team_checked(collection, name, members)
    team = Team.objects.create(collection=collection, name=name)
    _members_join(team, users)
    return team


@transaction.atomic
def team_update(*, team: Team, name: str, members: list[str]) -> Team:
    """Renames a team and sets its members (existing accounts, by username), as `team_create` checks them. A member
    taken off keeps the runs they submitted on the team's record (each receipt names its sender) and can no longer
    submit for it; one added is given the `participant` role. Locks the team, so two organizers' edits apply one
    after the other."""
    team = Team.objects.select_for_update().select_related("collection").get(pk=team.pk)
    name, users = _team_checked(team.collection, name, members, team=team)
    if name != team.name:
        team.name = name
        team.save(update_fields=["name"])
    kept = {user.pk for user in users}
    TeamMember.objects.filter(team=team).exclude(user__in=kept).delete()
    present = set(TeamMember.objects.filter(team=team).values_list("user_id", flat=True))
    _members_join(team, [user for user in users if user.pk not in present])
    return team


@dataclass
class Questionnaire:
    """What a team says of a run: how it was made, in words, the model family it uses (the machine judges'
    circularity mark) and its pool priority (1 = pooled first)."""

    run_type: str
    priority: int
    description: str = ""
    model_family: str = ""

    def problems(self, runs_per_team: int) -> list[dict]:
        found = []
        if self.run_type not in RunType.values:
            found.append(("run_type", f"choose one of {', '.join(RunType.values)}, got {self.run_type!r}"))
        if not isinstance(self.priority, int) or not 1 <= self.priority <= runs_per_team:
            found.append(("priority", f"a whole number from 1 to {runs_per_team} (1 is pooled first)"))
        if len(self.description) > 5000:
            found.append(("description", "at most 5,000 characters"))
        if len(self.model_family) > 100:
            found.append(("model_family", "at most 100 characters"))
        return [{"line": None, "field": field, "reason": reason} for field, reason in found]


def submission_receive(*, collection, user, upload, questionnaire: Questionnaire, now: datetime | None = None):
    """Checks an uploaded run file as the track's checker would (`core.run_checked`, the docnos against the
    collection) and, when it passes, stores it as the team's run with a receipt; returns (submission, replaced).
    A file whose tag the team already submitted replaces that run (before the close). SubmissionRefused, with
    nothing saved, for a bad file or questionnaire, a tag another team or the organizer holds, an upload outside the
    window or over the team's limit (refused uploads never count towards it)."""
    now = now or timezone.now()
    settings, team = _open_track(collection, user, now)
    problems = questionnaire.problems(settings.runs_per_team)
    if problems:
        raise SubmissionRefused("invalid", "the questionnaire is incomplete", problems)
    name = (getattr(upload, "name", "") or "run").rsplit("/", 1)[-1][:255]
    with tempfile.NamedTemporaryFile(suffix=".run") as copy:
        digest = hashlib.sha256()
        for chunk in upload.chunks() if hasattr(upload, "chunks") else iter(lambda: upload.read(1 << 20), b""):
            digest.update(chunk)
            copy.write(chunk)
        copy.flush()
        checked, documents, missing = _checked(collection, settings, copy.name, name)
    with transaction.atomic():
        Team.objects.select_for_update().get(pk=team.pk)  # one team's uploads one at a time: the limit holds
        replaced = _replaced(collection, team, checked.tag, settings.runs_per_team)
        try:
            with transaction.atomic():
                return _stored(collection, team, user, questionnaire, checked, documents, missing, replaced,
                               receipt=(digest.hexdigest(), now, name)), replaced is not None  # fmt: skip
        except IntegrityError as error:  # another team's upload of the same tag won the race
            raise SubmissionRefused("taken", f"run tag {checked.tag!r} is taken by another run") from error


def _open_track(collection, user, now: datetime) -> tuple[SubmissionSettings, Team]:
    settings = submission_settings(collection)
    if settings is None:
        raise SubmissionRefused("closed", "this collection takes no submissions")
    team = team_of(user=user, collection_id=collection.pk)
    if team is None:
        raise SubmissionRefused("not_participant", "you are in no team of this collection")
    refusal = core.window_refusal(now=now, opens=settings.opens, closes=settings.closes)
    if refusal:
        raise SubmissionRefused("closed", refusal)
    return settings, team


def _checked(collection, settings: SubmissionSettings, path: str, name: str):
    """(the checked run, {docno: id} of the documents it ranks that exist, the docnos missing); SubmissionRefused
    "invalid" with every problem named by line and field."""
    problems = Problems()
    topics = set(Topic.objects.filter(collection=collection).values_list("number", flat=True))
    checked = core.run_checked(parse_run(path, problems, name=name), problems, file=name, topics=topics,
                               depth=settings.depth)  # fmt: skip
    docnos = {docno for ranked in checked.per_topic.values() for docno in ranked}
    documents = dict(Document.objects.filter(collection=collection, docno__in=docnos).values_list("docno", "id"))
    missing = docnos - set(documents)
    if missing and settings.missing_documents == MissingDocuments.REFUSE:
        first_lines = {}
        for ranked in checked.per_topic.values():
            for docno, (_, line) in ranked.items():
                if docno in missing:  # once per docno: the first line naming it
                    first_lines[docno] = min(line, first_lines.get(docno, line))
        for docno, line in sorted(first_lines.items(), key=lambda item: item[1]):
            problems.add(name, line, "docno", f"document {docno!r} is not in the collection")
    if problems:
        listed = [core.problem_reported(p) for p in problems.listed[:LISTED_PROBLEMS]]
        noun = "problem" if problems.count == 1 else "problems"
        raise SubmissionRefused("invalid", f"{problems.count:,} {noun}; nothing was saved", listed, problems.count)
    return checked, documents, missing


def _replaced(collection, team: Team, tag: str, runs_per_team: int) -> Submission | None:
    """The team's current submission this upload replaces, or None for a new run; refuses a tag that is another
    team's or the organizer's, and a new run over the team's limit (under the team's lock)."""
    holder = Submission.objects.filter(collection=collection, tag=tag, state=SubmissionState.CURRENT).first()
    if holder is not None and holder.team_id != team.pk:
        raise SubmissionRefused("taken", f"run tag {tag!r} is another team's: choose a tag of your own")
    if holder is None and Run.objects.filter(collection=collection, tag=tag).exists():
        raise SubmissionRefused("taken", f"run tag {tag!r} is taken by a run of the collection: choose another")
    if holder is None:
        held = Submission.objects.filter(team=team, state=SubmissionState.CURRENT).count()
        if held >= runs_per_team:
            raise SubmissionRefused("limit", f"your team has submitted {held} of {runs_per_team} runs: withdraw or "
                                    "replace one (same run tag) to submit another")  # fmt: skip
    return holder


def _stored(collection, team, user, questionnaire, checked, documents, missing, replaced, *, receipt) -> Submission:
    sha256, received_at, name = receipt
    if missing:
        placeholders = [{"docno": d, "extra": PLACEHOLDER} for d in missing]
        documents_create(collection=collection, documents=placeholders, skip_existing=True)  # another team's too
        made = Document.objects.filter(collection=collection, docno__in=missing).values_list("docno", "id")
        documents = {**documents, **dict(made)}
    topics = dict(Topic.objects.filter(collection=collection, number__in=list(checked.per_topic)).values_list(
        "number", "id"))  # fmt: skip
    per_topic = {topics[number]: ranked for number, ranked in checked.per_topic.items()}
    run_store(collection=collection, tag=checked.tag, per_topic=per_topic, documents=documents, owner=user,
              precedence=questionnaire.priority, description=questionnaire.description,
              model_family=questionnaire.model_family)  # fmt: skip
    run = Run.objects.get(collection=collection, tag=checked.tag)
    if replaced is not None:
        run_describe(run=run, description=questionnaire.description, precedence=questionnaire.priority,
                     model_family=questionnaire.model_family)  # fmt: skip
        replaced.state, replaced.run = SubmissionState.REPLACED, None
        replaced.save(update_fields=["state", "run"])
    return Submission.objects.create(
        team=team, collection=collection, run=run, tag=checked.tag, sha256=sha256, received_at=received_at,
        file_name=name, submitted_by=user, run_type=questionnaire.run_type, description=questionnaire.description,
        model_family=questionnaire.model_family.strip(), priority=questionnaire.priority,
        topics=len(checked.per_topic), lines=checked.lines, placeholders=len(missing),
    )  # fmt: skip


@transaction.atomic
def submission_withdraw(*, submission: Submission, user, now: datetime | None = None) -> None:
    """Withdraws a team's current run before the close: its run is deleted (its topics recomputed without it) and
    its slot freed; the receipt stays, marked withdrawn. SubmissionRefused outside the window."""
    now = now or timezone.now()
    _, team = _open_track(submission.collection, user, now)
    Team.objects.select_for_update().get(pk=team.pk)
    submission = Submission.objects.select_for_update().get(pk=submission.pk)
    if submission.team_id != team.pk or submission.state != SubmissionState.CURRENT:
        raise SubmissionRefused("not_participant", "only a team's own current run can be withdrawn")
    run = submission.run
    submission.state, submission.run = SubmissionState.WITHDRAWN, None
    submission.save(update_fields=["state", "run"])
    if run is not None:
        run_delete(run=run)


@transaction.atomic
def submissions_freeze(*, collection, now: datetime | None = None) -> None:
    """Closes the window now (or keeps an earlier close): no upload, replacement or withdrawal after it."""
    now = now or timezone.now()
    settings = submission_settings(collection)
    if settings is None:
        raise ValidationError({"submissions": "this collection takes no submissions"})
    if settings.closes is None or settings.closes > now:
        settings.closes = now
        if settings.opens and settings.opens >= now:
            settings.opens = None
        settings.save(update_fields=["closes", "opens"])


def _priority_steps(collection, depths: Mapping[int, int]) -> list[tuple[list[Run], int]]:
    """(runs, depth) for each priority given a depth, in priority order: the current submissions' runs."""
    by_priority: dict[int, list[Run]] = {}
    current = Submission.objects.filter(collection=collection, state=SubmissionState.CURRENT, run__isnull=False)
    for submission in current.select_related("run").order_by("priority", "tag"):
        by_priority.setdefault(submission.priority, []).append(submission.run)
    steps = [(by_priority[priority], depths[priority]) for priority in sorted(by_priority) if priority in depths]
    if not steps:
        raise ValidationError({"depths": "no submitted run has a priority given a depth"})
    return steps


def submissions_pool(*, collection, depths: Mapping[int, int], strategy: str = "depth") -> PoolReport:
    """The preview of pooling the current submissions by priority: each priority's runs to the depth (or per-topic
    budget) given for it, priorities without one left out (e.g. {1: 100, 2: 20, 3: 20}); nothing is written."""
    steps = _priority_steps(collection, depths)
    return pool_build_steps(collection=collection, strategy=strategy, steps=steps, commit=False)


def submissions_pool_start(*, collection, depths: Mapping[int, int], strategy: str = "depth", created_by=None):
    """Starts pooling the current submissions by priority as a Job (progress per topic, `submissions_pool` is its
    preview): items already pooled keep their place and judgments."""
    steps = _priority_steps(collection, depths)
    return pool_build_start(collection=collection, strategy=strategy, size=max(size for _, size in steps),
                            runs=[], more_assessors=True, created_by=created_by, steps=steps)  # fmt: skip
