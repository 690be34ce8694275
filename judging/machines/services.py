"""Writes of machine judges: their accounts and versioned configurations, their runs (a Job, or the foreground
`manage.py judge`), and each reply with the judgment it gives, recorded through the one judgments write path.

A machine judge is an assessor whose account (`machine:NAME`) never logs in; it is advisory from its creation
(measured in agreement, never counted in the consensus) until an admin counts it. Every reply is kept by
(judge, configuration, topic, document): a rerun asks only for pairs with no reply under the current configuration,
so a crash, a killed worker or a cancel never pays for a pair twice; "retry the failed pairs" asks again only for
those whose reply was a failure.
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone

from config import sql
from config.core.secrets import secret_name_problem
from judging import plugins
from judging.core.identifiers import identifier, identifier_problem
from judging.jobs import kinds as job_kinds
from judging.jobs import runner as jobs
from judging.jobs.models import Job
from judging.machines import selectors as machine_selectors
from judging.machines.core.batches import BatchUnderWay
from judging.machines.core.judge import PairResult, TopicText
from judging.machines.core.probes import KINDS as PROBE_KINDS
from judging.machines.core.probes import ProbeAnswer, flip_report, probe_sources, probe_text
from judging.machines.core.prompts import TEMPLATES, custom, judge_template, template_problem
from judging.machines.models import MachineBatch, MachineJudge, MachineReply
from judging.machines.providers import BatchWork, Pairs, provider_of, texts
from judging.machines.selectors import judge_spending, verification_settings
from judging.models import Collection, Document, Judgment, Topic
from judging.services.judgments import judgments_record_bulk
from judging.sources.models import SourceKind, SourceRole
from judging.sources.services import label_source_set

User = get_user_model()
MACHINE_NAMESPACE = "machine:"
# Replies are kept in one transaction for up to REPLY_BATCH of them, and at least every FLUSH_SECONDS while they
# arrive, so a worker killed mid-run loses at most the replies of its last FLUSH_SECONDS (asked again by the run that
# resumes it); a transaction a reply cost 6-8 ms a pair, one per hundreds well under one. Their labels are recorded
# as judgments in the same transaction once REPLY_BATCH of them wait or LABEL_SECONDS passed (each recording marks
# its topics stale: a recompute each, inline in the embedded mode), and when the run ends; a label a killed worker
# left unrecorded is recorded from its kept reply when the next run starts.
REPLY_BATCH, FLUSH_SECONDS, LABEL_SECONDS = 500, 0.1, 1.0
REPLY_KEY = ("judge", "configuration", "topic", "document")
REPLY_COLUMNS = (*REPLY_KEY, "grade", "failure", "reply", "prompt_tokens", "completion_tokens", "seconds", "votes",
                 "run_job", "batch", "custom_id", "created_at")  # fmt: skip
UPSERT_ROWS = 500  # 15 values a row: within SQLite's 32,766 parameters a statement
SETTINGS = (
    "provider", "base_url", "model", "api_key_env", "prompt", "template", "template_max_grade", "scale_map", "batch",
    "concurrency", "requests_per_minute", "timeout", "retries", "budget_requests", "budget_tokens", "budget_words",
    "model_family", "price_prompt", "price_completion", "samples", "budget_money", "combine", "members", "batch_api",
    "batch_max_requests", "batch_max_bytes", "batch_poll_seconds", "batch_discount",
)  # fmt: skip
# What a reply depends on: a change of any of these is a new configuration (and version); limits are not.


def configuration_hash(judge: MachineJudge) -> str:
    """The hash of what a reply depends on (the provider says what), the prompt's version included: the reply
    cache's key."""
    parts = provider_of(judge).reply_depends_on(judge, judge_template(judge))
    return hashlib.sha256(json.dumps(parts, sort_keys=True).encode()).hexdigest()


def _validated(judge: MachineJudge, collection: Collection) -> None:
    """Refuses a configuration that could not run, naming the field."""
    provider = provider_of(judge)
    if judge.batch not in ("pair", "topic"):
        raise ValidationError({"batch": "choose pair (a call per pair) or topic (a call per topic's documents)"})
    if judge.budget_money is not None and judge.price_prompt is None and judge.price_completion is None:
        raise ValidationError({"budget_money": "a budget in money needs the prices per 1,000 tokens"})
    if judge.samples > 1 and judge.batch != "pair":
        raise ValidationError({"samples": "sampling asks about one pair a call: set batch to pair"})
    if judge.batch_api and "batch_api" not in provider.form_fields:
        raise ValidationError({"batch_api": "only a chat judge sends its requests as batch jobs"})
    if judge.api_key_env:
        problem = secret_name_problem(judge.api_key_env)
        if problem:
            raise ValidationError({"api_key_env": problem})
    provider.check(judge)
    if judge.prompt not in (*TEMPLATES, "custom"):
        raise ValidationError({"prompt": f"choose one of {', '.join(TEMPLATES)} or custom"})
    if judge.prompt == "custom":
        problem = template_problem(judge.template)
        if problem:
            raise ValidationError({"template": problem})
        if not 1 <= judge.template_max_grade <= 10:
            raise ValidationError({"template_max_grade": "a custom prompt's scale is 0..N with N from 1 to 10"})
    low, high = judge_template(judge).scale
    if not isinstance(judge.scale_map, dict):
        raise ValidationError({"scale_map": "give {prompt grade: collection grade}"})
    for key, value in judge.scale_map.items():
        if not str(key).lstrip("-").isdigit() or not low <= int(key) <= high:
            raise ValidationError({"scale_map": f"{key!r} is not a grade of the prompt's scale {low}..{high}"})
        if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= collection.max_grade:
            top = collection.max_grade
            raise ValidationError({"scale_map": f"{value!r} is not a grade of the collection's scale 0..{top}"})
    if not 1 <= judge.budget_words <= 100_000:
        raise ValidationError({"budget_words": "cut documents to between 1 and 100,000 words"})
    try:
        judge.full_clean(exclude=["collection", "account", "configuration", "version"])
    except ValidationError as error:
        raise ValidationError(error.message_dict) from error


def _name_checked(name: str) -> str:
    normal = identifier(name.strip())
    reason = identifier_problem(normal) if normal else "must not be empty"
    if reason or not re.fullmatch(r"[\w.@+-]{1,60}", normal):
        raise ValidationError({"name": f"{name!r} {reason or 'may hold letters, digits and . @ + - _ only'}"})
    return normal


@transaction.atomic
def machine_judge_create(*, collection: Collection, name: str, advisory: bool = True, **settings) -> MachineJudge:
    """Creates a machine judge of `collection` and its account `machine:NAME` (no usable password, inactive: it
    stands for labels and never logs in). Advisory unless `advisory=False`. `settings` are MachineJudge's fields
    (SETTINGS); ValidationError names the first that cannot be used."""
    name = _name_checked(name)
    unknown = sorted(set(settings) - set(SETTINGS))
    if unknown:
        raise ValidationError({unknown[0]: "not a setting of a machine judge"})
    if MachineJudge.objects.filter(collection=collection, name__iexact=name).exists():
        raise ValidationError({"name": f"this collection already has a judge named {name!r}"})
    members = settings.pop("members", None)
    judge = MachineJudge(collection=collection, name=name, **settings)
    _validated(judge, collection)
    members = _members_checked(judge, members, collection)
    username = f"{MACHINE_NAMESPACE}{collection.id}:{name}"
    account = User.objects.filter(username=username).first()
    if account is None:
        account = User(username=username, is_active=False)
        account.set_unusable_password()
        account.save()
    judge.account = account
    judge.configuration = configuration_hash(judge)
    judge.save()
    if members:
        judge.members.set(members)
        judge.configuration = configuration_hash(judge)  # a panel's depends on its members'
        judge.save(update_fields=["configuration"])
    label_source_set(
        collection=collection,
        account=account,
        kind=SourceKind.MACHINE,
        role=SourceRole.ADVISORY if advisory else SourceRole.COUNTED,
        reason=f"machine judge {name} made",
    )
    return judge


@transaction.atomic
def machine_judge_update(*, judge: MachineJudge, **changes) -> MachineJudge:
    """Changes a judge's settings; when what a reply depends on changed, the version rises and the next run asks
    afresh (replies under the old configuration stay as its history). The labels already given stay until then."""
    unknown = sorted(set(changes) - set(SETTINGS))
    if unknown:
        raise ValidationError({unknown[0]: "not a setting of a machine judge"})
    judge = MachineJudge.objects.select_for_update().get(pk=judge.pk)
    members = changes.pop("members", None)
    for name, value in changes.items():
        setattr(judge, name, value)
    _validated(judge, judge.collection)
    if members is not None or provider_of(judge).has_members:
        judge.members.set(_members_checked(judge, members if members is not None else judge.members.all(),
                                           judge.collection))  # fmt: skip
    _rehashed(judge)
    for panel in judge.panels.select_for_update():  # a member's new configuration is its panels' too
        _rehashed(panel)
    return judge


def _rehashed(judge: MachineJudge) -> None:
    configuration = configuration_hash(judge)
    if configuration != judge.configuration:
        judge.configuration, judge.version = configuration, judge.version + 1
    judge.save()


def _members_checked(judge: MachineJudge, members, collection: Collection) -> list[MachineJudge]:
    """A panel's members as judges: at least two of the collection's judges, none a panel, never itself; a judge
    that is no panel has none. ValidationError on `members`."""
    chosen = [m if isinstance(m, MachineJudge) else MachineJudge.objects.filter(pk=m).first() for m in members or []]
    if not provider_of(judge).has_members:
        if chosen:
            raise ValidationError({"members": "only a panel has members"})
        return []
    if any(m is None or m.collection_id != collection.id for m in chosen):
        raise ValidationError({"members": "a panel's members are judges of its own collection"})
    if any(m.pk == judge.pk or provider_of(m).has_members for m in chosen):
        raise ValidationError({"members": "a panel's members are judges, not panels (nor the panel itself)"})
    if len({m.pk for m in chosen}) < 2:
        raise ValidationError({"members": "a panel needs at least two members"})
    return chosen


@transaction.atomic
def machine_judge_delete(*, judge: MachineJudge) -> None:
    """Deletes a judge's configuration and replies. Its labels stay (they are an assessor's judgments, with their
    history); delete them through the judgments write path if they must go."""
    judge.delete()


@dataclass
class RunTally:
    """A run's running figures, what its Job shows while it works and keeps when it ends."""

    total: int = 0
    labelled: int = 0
    failed: int = 0
    cached: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    started: float = field(default_factory=time.monotonic)
    stopped: str = ""

    @property
    def done(self) -> int:
        return self.labelled + self.failed

    def as_dict(self) -> dict:
        elapsed = time.monotonic() - self.started
        left = max(self.total - self.done, 0)
        rate = self.done / elapsed if elapsed > 0 and self.done else None
        return {
            "total": self.total,
            "labelled": self.labelled,
            "failed": self.failed,
            "left": left,
            "cached": self.cached,
            "tokens": {"prompt": self.prompt_tokens, "completion": self.completion_tokens},
            "elapsed": round(elapsed, 1),
            "eta": round(left / rate, 1) if rate else None,
            "stopped": self.stopped,
        }


@transaction.atomic
def machine_replies_record(
    *, judge: MachineJudge, results: Sequence[PairResult], job_id: int | None = None, batches: dict | None = None
) -> dict[tuple[int, int], int]:
    """Keeps pairs' replies (replacing failed ones; results of (topic id, document id) as text) stamped with the
    run's Job and, for an answer read from a batch, that batch (`batches`: the server's id -> MachineBatch id) and
    its line's custom_id. The replies are the cache every later run reads, so a reply is never paid for twice.
    Returns the grades they give, {(topic id, document id): grade}, for `machine_labels_record`."""
    now, batches = timezone.now(), batches or {}
    rows: dict[tuple[int, int], tuple] = {}
    for result in results:
        pair = (int(result.topic), int(result.docno))
        rows[pair] = (
            judge.id, judge.configuration, *pair, result.grade, (result.failure or "")[:300],  # a class, an excerpt
            result.reply or "", result.prompt_tokens, result.completion_tokens, result.seconds,
            list(result.votes) if result.votes is not None else None, job_id, batches.get(result.batch),
            result.custom_id or "", now,
        )  # fmt: skip
    # One INSERT ... ON CONFLICT a chunk: Django's bulk_create prepared each of 100,000 rows' fields in Python for
    # longer than the database took to write them.
    rows_list = list(rows.values())
    sql.run_together([
        sql.upsert(MachineReply, REPLY_COLUMNS, rows_list[i : i + UPSERT_ROWS], REPLY_KEY)
        for i in range(0, len(rows_list), UPSERT_ROWS)
    ])  # fmt: skip
    return {pair: row[4] for pair, row in rows.items() if row[4] is not None}


def machine_labels_record(*, judge: MachineJudge, labels: dict[tuple[int, int], int] | None = None) -> int:
    """Records grades as the judge's judgments through the judgments write path (`judgments_record_bulk`: history,
    and the topics marked stale once a batch). `labels`, {(topic id, document id): grade}; None records every grade
    of its replies under the current configuration that its judgments do not hold yet (a run that stopped between
    keeping a reply and recording its label). Returns how many judgments were created or changed."""
    if labels is None:
        replies = MachineReply.objects.filter(judge=judge, configuration=judge.configuration, grade__isnull=False)
        mine = Judgment.objects.filter(assessor=judge.account).values_list("topic_id", "document_id", "grade")
        held = {(t, d): g for t, d, g in mine}
        rows = replies.values_list("topic_id", "document_id", "grade")
        labels = {(t, d): g for t, d, g in rows if held.get((t, d)) != g}
    if not labels:
        return 0
    account = judge.account
    note = f"machine judge {judge.name} v{judge.version}"
    created, changed, _ = judgments_record_bulk(
        labels={(account, t, d): g for (t, d), g in labels.items()}, changed_by=account, note=note
    )
    return created + changed


def machine_judge_run(
    *,
    judge: MachineJudge,
    topic_ids: Sequence[int] | None = None,
    limit: int | None = None,
    retry_failed: bool = False,
    progress: Callable | None = None,
    cancelled: Callable[[], bool] | None = None,
    job_id: int | None = None,
) -> dict:
    """Asks the judge about every pool item (of `topic_ids`, at most `limit`) it has no reply for, recording each
    reply as it arrives; returns the run's figures (RunTally). Faults are per pair (recorded as failures); a spent
    budget or `cancelled()` (asked in this thread as replies arrive, and before the first) ends the run early with
    `stopped` saying why, the pairs not asked left for a later run.
    With `job_id`, the run's Job: its replies are stamped with it, and what earlier attempts of it stored (a worker
    killed mid-run, the Job started again) counts against `limit` and the budget and in the figures returned."""
    provider = provider_of(judge)
    problem = provider.key_problem(judge)
    if problem:  # saved before the rule, or the operator unset it since
        raise ValidationError({"api_key_env": problem})
    earlier = machine_selectors.run_spent(judge=judge, job_id=job_id)
    left = None if not limit else max(limit - earlier.replies, 0)
    pairs = (
        []
        if left == 0
        else machine_selectors.pairs_to_ask(judge=judge, topic_ids=topic_ids, limit=left, retry_failed=retry_failed)
    )
    tally = RunTally(
        total=len(pairs) + earlier.replies,
        labelled=earlier.labelled,
        failed=earlier.failed,
        prompt_tokens=earlier.prompt_tokens,
        completion_tokens=earlier.completion_tokens,
    )
    topics = {t.id: t for t in Topic.objects.filter(pk__in={t for t, _ in pairs})}
    documents = {d.id: d for d in Document.objects.filter(pk__in={d for _, d in pairs})}
    progress = progress or (lambda done, total, detail=None: None)
    progress(0, tally.total, tally.as_dict())
    stopping = threading.Event()  # what the calls' threads look at; only this thread asks `cancelled`
    if cancelled is not None and cancelled():
        stopping.set()

    pending: list[PairResult] = []  # replies not yet kept
    grades: dict[tuple[int, int], int] = {}  # labels kept as replies, not yet recorded as judgments
    flushed = [time.monotonic(), time.monotonic()]  # replies kept, labels recorded
    ledger = _BatchLedger(judge=judge, job_id=job_id) if judge.batch_api else None

    def flush(*, labels: bool = True) -> None:
        now = time.monotonic()
        with transaction.atomic():
            if pending:
                grades.update(machine_replies_record(
                    judge=judge, results=pending, job_id=job_id, batches=ledger.rows if ledger else None
                ))  # fmt: skip
            if grades and (labels or len(grades) >= REPLY_BATCH or now - flushed[1] >= LABEL_SECONDS):
                machine_labels_record(judge=judge, labels=dict(grades))
                grades.clear()
                flushed[1] = now
        pending.clear()
        flushed[0] = now

    def stop() -> bool:
        if not stopping.is_set() and cancelled is not None and cancelled():
            stopping.set()
        return stopping.is_set()

    def record(result: PairResult) -> None:
        stop()
        if result.budget_spent:
            tally.stopped = "the budget is spent; raise it and run again for the pairs left"
            return
        pending.append(result)
        if len(pending) >= REPLY_BATCH or time.monotonic() - flushed[0] >= FLUSH_SECONDS:
            flush(labels=False)
        tally.labelled += result.failure is None
        tally.failed += result.failure is not None
        tally.cached += result.cached
        tally.prompt_tokens += result.prompt_tokens
        tally.completion_tokens += result.completion_tokens
        shown()

    def shown() -> None:
        progress(tally.done, tally.total, tally.as_dict() | ({"batches": ledger.reports()} if ledger else {}))

    machine_labels_record(judge=judge)  # what an earlier run kept as replies but stopped before recording
    try:
        topic_texts, document_texts = texts(topics.values(), documents.values())
        work = None
        if ledger is not None:
            ledger.flush, ledger.changed = flush, shown
            work = BatchWork(ledger, *machine_selectors.batches_under_way(judge=judge, job_id=job_id))
            ledger.adopt(work.resumed)
        asked = Pairs(pairs, topic_texts, document_texts, judge_template(judge), spent=earlier, batch_work=work)
        provider.label(judge, asked, record, stop)
    finally:
        flush()
    if stopping.is_set():
        tally.stopped = "cancelled"
    # What went wrong, by class with examples, kept with the job (the page showed "23 failed" and no reason).
    final = tally.as_dict() | {"failures": judge_spending(judge=judge)["failures"]}
    if ledger is not None:
        final["batches"] = ledger.reports()
    progress(tally.done, tally.total, final)
    return final


class _BatchLedger:
    """Where a run through the Batch API keeps its batches (core/batches.py's Ledger): a MachineBatch row each,
    written as the server reports; a batch is marked read back only after the replies it gave are kept (`flush`)."""

    def __init__(self, *, judge: MachineJudge, job_id: int | None):
        self.judge, self.job_id = judge, job_id
        self.rows: dict[str, int] = {}  # the server's batch id -> MachineBatch id
        self.batches: dict[str, BatchUnderWay] = {}
        self.flush: Callable[[], None] = lambda: None
        self.changed: Callable[[], None] = lambda: None  # the run's progress, shown again

    def adopt(self, resumed) -> None:
        for batch in resumed:
            self.batches[batch.id] = batch
        ids = MachineBatch.objects.filter(judge=self.judge, server_id__in=self.batches).values_list("server_id", "pk")
        self.rows.update(ids)

    def reports(self) -> list[dict]:
        return [batch.report() for batch in self.batches.values()]

    def submitted(self, batch: BatchUnderWay) -> None:
        self.batches[batch.id] = batch
        row = MachineBatch.objects.create(
            judge=self.judge, configuration=self.judge.configuration, run_job_id=self.job_id, server_id=batch.id,
            round=batch.round, custom_ids=batch.custom_ids, polled_at=timezone.now(), **self._said(batch),
        )  # fmt: skip
        self.rows[batch.id] = row.pk
        self.changed()

    def polled(self, batch: BatchUnderWay) -> None:
        MachineBatch.objects.filter(pk=self.rows[batch.id]).update(polled_at=timezone.now(), **self._said(batch))
        self.changed()

    def collected(self, batch: BatchUnderWay) -> None:
        self.flush()
        MachineBatch.objects.filter(pk=self.rows[batch.id]).update(collected=True, **self._said(batch))

    @staticmethod
    def _said(batch: BatchUnderWay) -> dict:
        return {"status": batch.status, "output_file_id": batch.output_file_id or "",
                "error_file_id": batch.error_file_id or "", "completed": batch.completed, "failed": batch.failed,
                "errors": batch.errors[:300]}  # fmt: skip


MACHINE_TASK = "judging.tasks.machine_judge_run"
# What the job page shows of this work; registered in the app's ready().
MACHINE_RUN_JOB = job_kinds.JobKind(
    MACHINE_TASK,
    "Machine judge run",
    "judging/jobs/_machine_result.html",
    running_template="judging/jobs/_machine_result.html",
    cancellable=True,
)


@transaction.atomic
def machine_judge_run_start(
    *,
    judge: MachineJudge,
    topic_ids: Sequence[int] | None = None,
    limit: int | None = None,
    retry_failed: bool = False,
    created_by=None,
):
    """Starts a run of the judge as a Job (the page's and the API's one way in). Refused while another run of the
    same judge is queued or running: both would ask for the same pairs (and pay twice). The judge's row is locked
    for the check and the start, so two concurrent starts are one run and one refusal."""
    MachineJudge.objects.select_for_update().get(pk=judge.pk)
    going = Job.objects.filter(task=MACHINE_TASK, arguments__judge_id=judge.id, state__in=["queued", "running"])
    if going.exists():
        raise ValidationError({"judge": f"a run of {judge.name} is already under way (job {going.first().pk})"})
    return jobs.job_start(
        kind=f"machine judge {judge.name}" + (" (retrying failed pairs)" if retry_failed else ""),
        task=MACHINE_TASK,
        arguments={
            "judge_id": judge.id,
            "topic_ids": list(topic_ids or []),
            "limit": limit,
            "retry_failed": retry_failed,
        },
        collection=judge.collection,
        created_by=created_by,
    )


def machine_judge_run_job_work(job, progress) -> dict:
    """The work of a machine-judge Job: `machine_judge_run`, stopping when the Job is cancelled (looked up at most
    every half second)."""
    judge = MachineJudge.objects.select_related("collection", "account").filter(pk=job.arguments["judge_id"]).first()
    if judge is None:
        raise jobs.JobRefused("the machine judge was deleted")
    checked = [0.0, False]

    def cancelled() -> bool:
        now = time.monotonic()
        if not checked[1] and now - checked[0] > 0.5:
            checked[0], checked[1] = now, jobs.job_cancel_requested(job.id)
        return checked[1]

    try:
        result = machine_judge_run(
            judge=judge,
            topic_ids=job.arguments.get("topic_ids") or None,
            limit=job.arguments.get("limit"),
            retry_failed=job.arguments.get("retry_failed", False),
            progress=progress,
            cancelled=cancelled,
            job_id=job.id,
        )
    except ValidationError as refused:
        field, reasons = next(iter(refused.message_dict.items()))
        raise jobs.JobRefused(f"{field}: {reasons[0]}") from refused
    if result["stopped"] == "cancelled":
        raise jobs.JobCancelled(result)
    return result


def machine_judge_preview(
    *, judge: MachineJudge, topic: Topic, document: Document, ask: bool = False, template_text: str | None = None
) -> dict:
    """What the judge would send for one pair (the prompt), and with `ask` what the model answers and the grade read
    from it, recording nothing. `template_text` previews an unsaved custom template (ValidationError when unusable).
    Returns {"prompt", "reply", "grade", "failure", "seconds", "tokens"}."""
    if template_text is not None:
        problem = template_problem(template_text)
        if problem:
            raise ValidationError({"template": problem})
        template = custom(template_text, scale=(0, judge.template_max_grade), name="preview")
    else:
        template = judge_template(judge)
    text = " ".join(p for p in (document.title, document.body) if p)
    preview = {"prompt": None, "reply": None, "grade": None, "failure": None, "seconds": None, "tokens": None}
    provider = provider_of(judge)
    preview["prompt"] = provider.prompt_shown(judge, template, topic, text)
    if not ask:
        return preview
    problem = provider.key_problem(judge)
    if problem:
        raise ValidationError({"api_key_env": problem})
    results: list[PairResult] = []
    topic_texts = {str(topic.id): TopicText(topic.title, topic.description, topic.narrative)}
    asked = Pairs([(topic.id, document.id)], topic_texts, {str(document.id): text}, template)
    provider.label(judge, asked, results.append, lambda: False, preview=True)
    answer = results[0]
    preview.update(
        reply=answer.reply,
        grade=answer.grade,
        failure=answer.failure,
        seconds=round(answer.seconds, 3),
        tokens=answer.prompt_tokens + answer.completion_tokens,
    )
    return preview


PROBE_TASK = "judging.tasks.machine_judge_probe"
MACHINE_PROBE_JOB = job_kinds.JobKind(PROBE_TASK, "Gullibility probes", "judging/jobs/_probe_result.html")


def machine_judge_probe(
    *, judge: MachineJudge, count: int = 20, seed: int = 0, progress: Callable | None = None
) -> dict:
    """Asks the judge about gullibility probes (`core/probes.py`) built from `count` documents that people and the
    judge itself labelled not relevant, each in every probe kind, and keeps the flip report on the judge with the
    configuration it measured. Probes are never recorded as judgments or replies: their answers live only in the
    report. Returns the report."""
    provider = provider_of(judge)
    problem = provider.key_problem(judge)
    if problem:
        raise ValidationError({"api_key_env": problem})
    collection = judge.collection
    chosen = probe_sources(machine_selectors.probe_source_pairs(judge=judge), count, seed=seed)
    topics = {t.id: t for t in Topic.objects.filter(pk__in={t for t, _ in chosen})}
    documents = Document.objects.filter(pk__in={d for _, d in chosen})
    topic_texts, document_texts = texts(topics.values(), documents)
    template = judge_template(judge)
    asked, probe_documents, origin = [], {}, {}
    for kind in PROBE_KINDS:
        for topic_id, document_id in chosen:
            key = f"{kind}:{topic_id}:{document_id}"  # a probe's text depends on its topic's query
            query = f"{topics[topic_id].title} {topics[topic_id].description}"
            probe_documents[key] = probe_text(
                kind, document_texts[str(document_id)], query=query, top_grade=template.scale[1],
                max_words=judge.budget_words,
            )  # fmt: skip
            asked.append((topic_id, key))
            origin[(str(topic_id), key)] = (kind, topic_id, document_id)
    answers: list[ProbeAnswer] = []
    progress = progress or (lambda done, total, detail=None: None)
    progress(0, len(asked))

    def record(result: PairResult) -> None:
        if result.budget_spent:
            return
        kind, topic_id, document_id = origin[(str(result.topic), str(result.docno))]
        answers.append(ProbeAnswer(kind, topic_id, document_id, result.grade, result.reply))
        progress(len(answers), len(asked))

    provider.label(judge, Pairs(asked, topic_texts, probe_documents, template), record, lambda: False)
    report = {
        "configuration": judge.configuration,
        "at": timezone.now().isoformat(),
        "sources": len(chosen),
        "threshold": collection.relevance_threshold,
        "kinds": flip_report(answers, threshold=collection.relevance_threshold),
    }
    MachineJudge.objects.filter(pk=judge.pk).update(probes=report)
    judge.probes = report
    return report


@transaction.atomic
def machine_judge_probe_start(*, judge: MachineJudge, count: int = 20, created_by=None):
    """Starts the judge's gullibility probes as a Job."""
    if count < 1 or count > 500:
        raise ValidationError({"count": "probe between 1 and 500 documents"})
    return jobs.job_start(
        kind=f"gullibility probes of {judge.name}",
        task=PROBE_TASK,
        arguments={"judge_id": judge.id, "count": count},
        collection=judge.collection,
        created_by=created_by,
    )


def machine_judge_probe_job_work(job, progress) -> dict:
    judge = MachineJudge.objects.select_related("collection", "account").filter(pk=job.arguments["judge_id"]).first()
    if judge is None:
        raise jobs.JobRefused("the machine judge was deleted")
    try:
        return machine_judge_probe(judge=judge, count=job.arguments.get("count", 20), progress=progress)
    except ValidationError as refused:
        field, reasons = next(iter(refused.message_dict.items()))
        raise jobs.JobRefused(f"{field}: {reasons[0]}") from refused


VERIFICATION_SETTINGS = ("verification_judge", "verification_mode")


def verification_settings_update(*, collection: Collection, changes: dict) -> set[str]:
    """Takes which machine judge the assessors verify (one of the collection's own, given or by id; None for none)
    and how (an empty mode keeps the current one) out of `changes`, and stores them in the collection's row (made on
    the first change); ValidationError names the field. Returns the names whose value changed."""
    values = {name: changes.pop(name) for name in VERIFICATION_SETTINGS if name in changes}
    if values.get("verification_mode", "blind") in (None, ""):
        values.pop("verification_mode")
    if "verification_judge" in values:
        values["verification_judge"] = _verified_judge(collection, values["verification_judge"])
    row = verification_settings(collection)
    changed = plugins.settings_applied(row, values)
    if changed:
        row.save()
    return changed


def _verified_judge(collection: Collection, judge) -> MachineJudge | None:
    if judge is None or judge == "":
        return None
    judge_id = getattr(judge, "pk", judge)
    found = MachineJudge.objects.filter(collection=collection, pk=judge_id).first()
    if found is None:
        raise ValidationError({"verification_judge": f"no machine judge {judge_id!r} in this collection"})
    return found
