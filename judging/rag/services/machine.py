"""A machine judge's work on answers, as Jobs: proposing each topic's nuggets from its relevant segments, assigning
nuggets to answers, and judging whether each cited segment supports its sentence. All go through the machine judges'
client (its server, key, deadlines, retries, rate and budget); a failed call is recorded as such (a proposal or a
support judgment: in the job's failures, the citation left unjudged; an assignment: "failed" for each nugget, which
earns 0 where the machine counts), never guessed. A rerun asks only what is not answered yet. Proposals wait for a
person to accept them; the machine's assignments and support judgments are an advisory source until an admin makes
them counted."""

from __future__ import annotations

import contextlib
import threading
import time
from collections import Counter, defaultdict
from concurrent.futures import ThreadPoolExecutor

from django.core.exceptions import ValidationError
from django.db import transaction

from judging.jobs import kinds as job_kinds
from judging.jobs import runner as jobs
from judging.machines.core.client import ChatClient
from judging.machines.models import MachineJudge
from judging.machines.providers import judge_budget, provider_of, server_config
from judging.models import Document, Topic
from judging.rag.core.nuggets import (
    assigned_labels,
    assignment_prompt,
    creation_prompt,
    proposed_nuggets,
    support_label,
    support_prompt,
)
from judging.rag.models.answers import Answer, SupportJudgment
from judging.rag.models.nuggets import AssignmentLabel, Nugget, NuggetAssignment
from judging.rag.services.answers import support_record
from judging.rag.services.assignments import assignments_record_machine
from judging.rag.services.nuggets import nugget_create
from judging.sources.selectors import counted_labels

PROPOSE_TASK = "judging.tasks.nuggets_propose"
ASSIGN_TASK = "judging.tasks.nuggets_assign"
PROPOSE_JOB = job_kinds.JobKind(PROPOSE_TASK, "Machine nuggets", "judging/jobs/_nuggets_result.html", cancellable=True)
ASSIGN_JOB = job_kinds.JobKind(
    ASSIGN_TASK, "Machine nugget assignment", "judging/jobs/_nuggets_result.html", cancellable=True
)
SUPPORT_TASK = "judging.tasks.support_judge"
SUPPORT_JOB = job_kinds.JobKind(
    SUPPORT_TASK, "Machine support judging", "judging/jobs/_nuggets_result.html", cancellable=True
)
MAX_PASSAGES = 20
KEPT_ERRORS = 5


def _chat_judge(judge: MachineJudge) -> None:
    """Refuses a judge whose provider writes no text (the offline ones: BM25, MiniLM, a panel)."""
    if provider_of(judge).offline:
        raise ValidationError({"judge": "nuggets are proposed and assigned by a chat-completions judge"})


def _start(task: str, what: str, judge: MachineJudge, arguments: dict, created_by):
    MachineJudge.objects.select_for_update().get(pk=judge.pk)
    going = jobs.Job.objects.filter(task=task, arguments__judge_id=judge.id, state__in=["queued", "running"])
    if going.exists():
        raise ValidationError({"judge": f"{judge.name} is already {what} (job {going.first().pk})"})
    return jobs.job_start(
        kind=f"{judge.name}: {what}", task=task, arguments={"judge_id": judge.id, **arguments},
        collection=judge.collection, created_by=created_by,
    )  # fmt: skip


@transaction.atomic
def nuggets_propose_start(*, judge: MachineJudge, topic_ids: list[int] | None = None, created_by=None):
    """Starts the judge proposing nuggets for the collection's topics (these, or all that it has not proposed for
    yet), as a Job. Refused for a judge that is not a chat server's, or while it is already at it."""
    _chat_judge(judge)
    return _start(PROPOSE_TASK, "proposing nuggets", judge, {"topic_ids": list(topic_ids or [])}, created_by)


@transaction.atomic
def nuggets_assign_start(*, judge: MachineJudge, run_ids: list[int] | None = None, created_by=None):
    """Starts the judge assigning the accepted nuggets to the collection's answers (these runs', or all), as a Job."""
    _chat_judge(judge)
    return _start(ASSIGN_TASK, "assigning nuggets", judge, {"run_ids": list(run_ids or [])}, created_by)


@transaction.atomic
def support_judge_start(*, judge: MachineJudge, run_ids: list[int] | None = None, created_by=None):
    """Starts the judge judging whether each cited segment supports its sentence (these runs' answers, or all), as a
    Job."""
    _chat_judge(judge)
    return _start(SUPPORT_TASK, "judging support", judge, {"run_ids": list(run_ids or [])}, created_by)


def relevant_passages(*, topic: Topic, words: int) -> list[tuple[str, str]]:
    """The topic's segments that the counted labels' majority (a tie: the higher grade) calls relevant, best first,
    at most MAX_PASSAGES, each cut to `words` words: [(docno, text)]."""
    grades: dict[int, list[int]] = defaultdict(list)
    labels = counted_labels(collection=topic.collection, topic_ids=[topic.pk]).exclude(grade=None)
    for document_id, grade in labels.values_list("document_id", "grade"):
        grades[document_id].append(grade)
    decided = {d: max(Counter(g).items(), key=lambda kv: (kv[1], kv[0]))[0] for d, g in grades.items()}
    relevant = {d: g for d, g in decided.items() if g >= topic.collection.relevance_threshold}
    documents = Document.objects.filter(pk__in=relevant).only("docno", "title", "body")
    ranked = sorted(documents, key=lambda d: (-relevant[d.pk], d.docno))[:MAX_PASSAGES]
    return [(d.docno, " ".join(f"{d.title} {d.body}".split()[:words])) for d in ranked]


class _Stop:
    """Whether the job was cancelled, looked up at most once a second."""

    def __init__(self, job):
        self.job, self.abort, self.seen = job, threading.Event(), 0.0

    def __call__(self) -> bool:
        if time.monotonic() - self.seen > 1.0:
            self.seen = time.monotonic()
            if jobs.job_cancel_requested(self.job.id):
                self.abort.set()
        return self.abort.is_set()


def _calls(judge: MachineJudge, stop: _Stop, prompts: list[tuple[object, str]]):
    """Each (key, reply) as the judge's server answers, `judge.concurrency` at a time, in the prompts' order."""
    client = ChatClient(server_config(judge), budget=judge_budget(judge), abort=stop.abort)
    with contextlib.closing(client), ThreadPoolExecutor(max_workers=judge.concurrency) as pool:
        yield from zip((k for k, _ in prompts), pool.map(lambda kp: client.complete(kp[1]), prompts), strict=True)


def nuggets_propose_job_work(job, progress) -> dict:
    judge = MachineJudge.objects.select_related("collection").get(pk=job.arguments["judge_id"])
    topics = Topic.objects.filter(collection=judge.collection).select_related("collection").order_by("id")
    if job.arguments.get("topic_ids"):
        topics = topics.filter(pk__in=job.arguments["topic_ids"])
    done_before = set(Nugget.objects.filter(proposed_by=judge).values_list("topic_id", flat=True))
    topics = [t for t in topics if t.pk not in done_before]
    prompts = [
        (t, creation_prompt(query=t.title, passages=relevant_passages(topic=t, words=judge.budget_words)))
        for t in topics
    ]
    stop, result = _Stop(job), {"topics": len(prompts), "proposed": 0, "failures": 0, "errors": []}
    for done, (topic, reply) in enumerate(_calls(judge, stop, prompts), start=1):
        nuggets = proposed_nuggets(reply.text) if reply.error is None else None
        if nuggets is None:
            result["failures"] += 1
            if len(result["errors"]) < KEPT_ERRORS:
                result["errors"].append(f"topic {topic.number}: {reply.error or 'the reply holds no list of nuggets'}")
        else:
            with transaction.atomic():
                for text, importance in nuggets:
                    nugget_create(topic=topic, text=text, importance=importance, proposed_by=judge)
            result["proposed"] += len(nuggets)
        progress(done, len(prompts), dict(result))
        if stop():
            raise jobs.JobCancelled(result)
    return result


def _answer_text(answer: Answer) -> str:
    return " ".join(s["text"] for s in answer.sentences)


def nuggets_assign_job_work(job, progress) -> dict:
    judge = MachineJudge.objects.select_related("collection", "account").get(pk=job.arguments["judge_id"])
    answers = Answer.objects.filter(run__collection=judge.collection).select_related("topic").order_by("topic", "run")
    if job.arguments.get("run_ids"):
        answers = answers.filter(run_id__in=job.arguments["run_ids"])
    nuggets: dict[int, list[Nugget]] = defaultdict(list)
    for nugget in Nugget.objects.filter(topic__collection=judge.collection, accepted=True, removed=False):
        nuggets[nugget.topic_id].append(nugget)
    answered = defaultdict(set)
    rows = NuggetAssignment.objects.filter(assessor=judge.account).exclude(label=AssignmentLabel.FAILED)
    for answer_id, nugget_id in rows.values_list("answer_id", "nugget_id"):
        answered[answer_id].add(nugget_id)
    prompts = []
    for answer in answers:
        wanted = nuggets.get(answer.topic_id, [])
        if wanted and not {n.pk for n in wanted} <= answered[answer.pk]:
            texts = [n.text for n in wanted]
            prompts.append(
                (
                    (answer, wanted),
                    assignment_prompt(query=answer.topic.title, answer=_answer_text(answer), nuggets=texts),
                )
            )
    stop, result = _Stop(job), {"answers": len(prompts), "assigned": 0, "failures": 0, "errors": []}
    for done, ((answer, wanted), reply) in enumerate(_calls(judge, stop, prompts), start=1):
        labels = assigned_labels(reply.text, len(wanted)) if reply.error is None else None
        if labels is None:
            result["failures"] += 1
            if len(result["errors"]) < KEPT_ERRORS:
                result["errors"].append(f"answer {answer.pk}: {reply.error or 'the reply is not a list of labels'}")
            labels = [AssignmentLabel.FAILED] * len(wanted)
        else:
            result["assigned"] += 1
        assignments_record_machine(
            account=judge.account,
            answer=answer,
            labels=list(zip(wanted, labels, strict=True)),
            reply=reply.text or reply.error or "",
        )
        progress(done, len(prompts), dict(result))
        if stop():
            raise jobs.JobCancelled(result)
    return result


def support_judge_job_work(job, progress) -> dict:
    judge = MachineJudge.objects.select_related("collection", "account").get(pk=job.arguments["judge_id"])
    answers = Answer.objects.filter(run__collection=judge.collection).order_by("topic", "run")
    if job.arguments.get("run_ids"):
        answers = answers.filter(run_id__in=job.arguments["run_ids"])
    answers = list(answers)
    done_before = set(
        SupportJudgment.objects.filter(assessor=judge.account, answer__in=answers).values_list(
            "answer_id", "sentence", "document_id"
        )
    )
    documents = Document.objects.in_bulk({d for a in answers for d in a.references})
    prompts = []
    for answer in answers:
        for index, sentence in enumerate(answer.sentences):
            for position in sentence["citations"]:
                document_id = answer.references[position]
                if (answer.pk, index, document_id) in done_before or document_id not in documents:
                    continue
                document = documents[document_id]
                passage = " ".join(f"{document.title} {document.body}".split()[: judge.budget_words])
                prompts.append(
                    ((answer, index, document_id), support_prompt(sentence=sentence["text"], passage=passage))
                )
    stop, result = _Stop(job), {"pairs": len(prompts), "judged": 0, "failures": 0, "errors": []}
    for done, ((answer, index, document_id), reply) in enumerate(_calls(judge, stop, prompts), start=1):
        label = support_label(reply.text) if reply.error is None else None
        if label is None:
            result["failures"] += 1
            if len(result["errors"]) < KEPT_ERRORS:
                why = reply.error or "the reply names no support label"
                result["errors"].append(f"answer {answer.pk}, sentence {index + 1}: {why}")
        else:
            support_record(assessor=judge.account, answer=answer, sentence=index, document_id=document_id, label=label)
            result["judged"] += 1
        progress(done, len(prompts), dict(result))
        if stop():
            raise jobs.JobCancelled(result)
    return result
