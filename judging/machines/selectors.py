"""Reads for verifying a machine judge's labels: a topic's pooled documents in verification order (the machine's
likeliest errors first, `machine.verification`), and the machine's label of one item as the judging page shows it
(beside the document when post-editing, after the person's own judgment when blind)."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence

from django.conf import settings
from django.db.models import F

from judging.machines.core.batch_api import COMPLETION_WINDOW
from judging.machines.core.batches import BatchUnderWay
from judging.machines.core.judge import BATCH_SIZE
from judging.machines.core.prompts import judge_template
from judging.machines.core.verification import impact_weights, verification_scores
from judging.machines.models import MachineBatch, MachineJudge, MachineReply, VerificationSettings
from judging.machines.providers import RunSpent, batch_price_factor, price_factor, provider_of
from judging.models import Document, Judgment, PoolItem, Run, Topic
from judging.sources import selectors as sources


def _labels(topic: Topic, account_ids) -> dict[int, dict[int, int]]:
    labels: dict[int, dict[int, int]] = {a: {} for a in account_ids}
    rows = Judgment.objects.filter(topic=topic, assessor_id__in=account_ids, grade__isnull=False)
    for assessor_id, document_id, grade in rows.values_list("assessor_id", "document_id", "grade"):
        labels[assessor_id][document_id] = grade
    return labels


def verification_settings(collection) -> VerificationSettings:
    """Which machine judge a collection's assessors verify, and how: its row, or none verified while it has none."""
    try:
        return collection.verification_settings
    except VerificationSettings.DoesNotExist:
        return VerificationSettings(collection=collection)


def verification_settings_values(*, collection) -> dict:
    settings = verification_settings(collection)
    return {"verification_judge": settings.verification_judge_id, "verification_mode": settings.verification_mode}


def verified_judge_id(collection) -> int | None:
    return verification_settings(collection).verification_judge_id


def post_editing(collection) -> bool:
    """Whether assessors see the verified judge's grade beside the document (else blind: after their own)."""
    settings = verification_settings(collection)
    return settings.verification_judge_id is not None and settings.verification_mode == "post_edit"


def verification_queue_order(*, topic: Topic, rankings) -> dict[int, float] | None:
    """The judging queue's order under the collection's verification judge (`judging.plugins.queue_orders`); None,
    reading nothing, when it has none. `rankings` reads the topic's rankings when called."""
    if verified_judge_id(topic.collection) is None:
        return None
    return verification_order(topic=topic, rankings=rankings())


def verification_order(*, topic: Topic, rankings) -> dict[int, float]:
    """{document id: verification score} for the topic's pool under its collection's verification judge (empty when
    it has none). `rankings` is `selectors.topic_rankings` of the topic."""
    collection = topic.collection
    judge_id = verified_judge_id(collection)
    if judge_id is None:
        return {}
    judge_account = MachineJudge.objects.filter(pk=judge_id).values_list("account_id").first()
    if judge_account is None:
        return {}
    accounts = list(MachineJudge.objects.filter(collection=collection).values_list("account_id", flat=True))
    labels = _labels(topic, accounts)
    pool = list(PoolItem.objects.filter(topic=topic).values_list("document_id", flat=True))
    tags = dict(Run.objects.filter(collection_id=collection.id).values_list("id", "tag"))
    impact = impact_weights({tags[r]: docs.tolist() for r, docs in rankings.items() if r in tags}, pool)
    machine = labels.pop(judge_account[0], {})
    replies = MachineReply.objects.filter(
        judge_id=judge_id,
        topic=topic,
        configuration=F("judge__configuration"),
        failure="",
        votes__isnull=False,
    )
    votes = dict(replies.values_list("document_id", "votes"))
    threshold = collection.relevance_threshold
    return verification_scores(pool, machine, list(labels.values()), impact, threshold=threshold, votes=votes)


def machine_label(*, topic: Topic, document_id: int) -> dict | None:
    """The verification judge's grade and reply for one item, {"judge", "grade", "label", "explanation"}, or None."""
    collection = topic.collection
    judge = MachineJudge.objects.filter(pk=verified_judge_id(collection)).first()
    if judge is None:
        return None
    grade = (
        Judgment.objects.filter(assessor_id=judge.account_id, topic=topic, document_id=document_id)
        .values_list("grade", flat=True)
        .first()
    )
    if grade is None:
        return None
    reply = (
        MachineReply.objects.filter(judge=judge, topic=topic, document_id=document_id, failure="")
        .order_by("-created_at")
        .values_list("reply", flat=True)
        .first()
    )
    label = collection.grades.filter(value=grade).values_list("label", flat=True).first() or ""
    return {
        "judge": judge.name,
        "grade": grade,
        "label": label,
        "explanation": reply or "",
        "gullibility": gullibility(judge=judge),
    }


def reply_provenance(*, topic_id: int) -> dict[tuple[int, int], dict]:
    """{(machine account id, document id): where its label of the topic came from}: the judge, its provider,
    model, prompt and the prompt's version, the configuration (the reply cache's key) and the judge's version, and
    the reply's tokens and seconds. Only replies under each judge's current configuration (those its labels are)."""
    replies = MachineReply.objects.filter(topic_id=topic_id, failure="", configuration=F("judge__configuration"))
    found, versions = {}, {}
    for reply in replies.select_related("judge"):
        judge = reply.judge
        if judge.id not in versions:
            versions[judge.id] = judge_template(judge).version
        found[(judge.account_id, reply.document_id)] = {
            "judge": judge.name, "provider": judge.provider, "model": judge.model, "prompt": judge.prompt,
            "prompt_version": versions[judge.id], "configuration": judge.configuration[:12],
            "judge_version": judge.version, "prompt_tokens": reply.prompt_tokens,
            "completion_tokens": reply.completion_tokens, "seconds": round(reply.seconds, 3),
        }  # fmt: skip
    return found


def pairs_to_ask(
    *, judge: MachineJudge, topic_ids: Sequence[int] | None = None, limit: int | None = None, retry_failed=False
) -> list[tuple[int, int]]:
    """The (topic, document) pool items a run asks about, in topic and pool order: those with no reply under the
    judge's configuration, or (`retry_failed`) those whose reply was a failure."""
    items = PoolItem.objects.filter(topic__collection=judge.collection).order_by("topic_id", "-priority", "id")
    if topic_ids:
        items = items.filter(topic_id__in=topic_ids)
    replies = MachineReply.objects.filter(judge=judge, configuration=judge.configuration)
    if retry_failed:
        wanted = set(replies.exclude(failure="").values_list("topic_id", "document_id"))
        pairs = [p for p in items.values_list("topic_id", "document_id") if p in wanted]
    else:
        answered = set(replies.values_list("topic_id", "document_id"))
        pairs = [p for p in items.values_list("topic_id", "document_id") if p not in answered]
    return pairs[:limit] if limit else pairs


def batches_under_way(*, judge: MachineJudge, job_id: int | None) -> tuple[list[BatchUnderWay], dict[str, int]]:
    """What a run through the Batch API takes up: the judge's batches under its configuration not yet read back
    (sent by an attempt a killed worker left, or by a cancelled run: polled and read, never sent again), and how
    often each line of run `job_id` was sent and came back unanswered (its sends so far, for the rounds' limit)."""
    batches = MachineBatch.objects.filter(judge=judge, configuration=judge.configuration).order_by("id")
    resumed = [
        BatchUnderWay(
            row.server_id,
            row.round,
            list(row.custom_ids),
            status=row.status,
            output_file_id=row.output_file_id or None,
            error_file_id=row.error_file_id or None,
            completed=row.completed,
            failed=row.failed,
            errors=row.errors,
            polled_at=row.polled_at.timestamp(),
            interval=judge.batch_poll_seconds,
        )
        for row in batches.filter(collected=False)
    ]
    tries: Counter = Counter()
    if job_id is not None:
        for custom_ids in batches.filter(collected=True, run_job_id=job_id).values_list("custom_ids", flat=True):
            tries.update(custom_ids)
    return resumed, dict(tries)


def run_spent(*, judge: MachineJudge, job_id: int | None) -> RunSpent:
    """`RunSpent` of the judge's run `job_id` (nothing for a run outside a Job)."""
    if job_id is None:
        return RunSpent()
    rows = MachineReply.objects.filter(judge=judge, run_job_id=job_id).values_list(
        "failure", "prompt_tokens", "completion_tokens"
    )
    spent = [0, 0, 0, 0, 0]
    for failure, prompt, completion in rows:
        spent[0] += 1
        spent[1 if not failure else 2] += 1
        spent[3] += prompt
        spent[4] += completion
    return RunSpent(*spent)


# English text runs about four characters a token (OpenAI's rule of thumb): the estimate's basis before any reply.
CHARS_PER_TOKEN = 4
ESTIMATE_PROMPTS = 20  # prompts rendered to estimate their length
COMPLETION_GUESS = 8  # "##final score: 2" and a little; replaced by the measured mean after any reply


def run_estimate(*, judge: MachineJudge) -> dict:
    """What a run over the pairs left would take, before it starts: pairs, calls, prompt and completion tokens,
    money (with prices), time, and the calls the budget allows. Per call, the judge's measured means under this
    configuration where it has replies ("measured"), else prompts rendered for up to ESTIMATE_PROMPTS pairs at
    CHARS_PER_TOKEN ("rendered"); time from the measured latency p50 over the concurrency, and never under what
    the requests-per-minute limit allows (None before any reply). An offline judge makes no call."""
    provider = provider_of(judge)
    pairs = pairs_to_ask(judge=judge)
    estimate = {"pairs": len(pairs), "calls": 0, "tokens": {"prompt": 0, "completion": 0}, "cost": None,
                "seconds": None, "basis": None, "budget_calls": None, "window": None,
                "discount": float(judge.batch_discount) if judge.batch_api else None}  # fmt: skip
    if provider.offline or not pairs:
        return estimate
    if judge.batch == "topic":
        per_topic = Counter(topic for topic, _ in pairs)
        calls = sum(math.ceil(n / BATCH_SIZE) for n in per_topic.values())
    else:
        calls = len(pairs) * judge.samples
    spent = judge_spending(judge=judge)
    answered = spent["replies"] - sum(f["count"] for f in spent["failures"])
    if answered > 0:  # a reply's tokens are its pair's share, every sample's included
        prompt, completion = spent["tokens"]["prompt"] / answered, spent["tokens"]["completion"] / answered
        basis = "measured"
    else:
        shown = pairs[:: max(1, len(pairs) // ESTIMATE_PROMPTS)][:ESTIMATE_PROMPTS]
        prompt, completion = _rendered_tokens(judge, shown) * judge.samples, COMPLETION_GUESS * judge.samples
        basis = "rendered"
    tokens = {"prompt": round(len(pairs) * prompt), "completion": round(len(pairs) * completion)}
    cost = None
    if judge.price_prompt is not None or judge.price_completion is not None:
        prices = float(judge.price_prompt or 0), float(judge.price_completion or 0)
        cost = round((tokens["prompt"] * prices[0] + tokens["completion"] * prices[1]) / 1000 * price_factor(judge), 4)
    seconds = None
    if judge.batch_api:  # what a batch takes is the server's to say: at most its completion window
        estimate["window"] = COMPLETION_WINDOW
    elif spent["latency"]["p50"] is not None:
        seconds = calls * spent["latency"]["p50"] / max(1, judge.concurrency)
        if judge.requests_per_minute:
            seconds = max(seconds, calls * 60 / judge.requests_per_minute)
        seconds = round(seconds, 1)
    limits = [judge.budget_requests]
    per_call_tokens = (tokens["prompt"] + tokens["completion"]) / calls
    if judge.budget_tokens is not None and per_call_tokens:
        limits.append(math.ceil(judge.budget_tokens / per_call_tokens))
    if judge.budget_money is not None and cost:
        limits.append(math.ceil(float(judge.budget_money) / (cost / calls)))
    allowed = min((n for n in limits if n is not None), default=None)
    estimate.update(calls=calls, tokens=tokens, cost=cost, seconds=seconds, basis=basis,
                    budget_calls=allowed if allowed is not None and allowed < calls else None)  # fmt: skip
    return estimate


def _rendered_tokens(judge: MachineJudge, pairs: Sequence[tuple[int, int]]) -> float:
    """The mean length of the judge's prompts for `pairs`, in tokens at CHARS_PER_TOKEN."""
    if not pairs:
        return 0.0
    provider, template = provider_of(judge), judge_template(judge)
    topics = Topic.objects.in_bulk({t for t, _ in pairs})
    documents = Document.objects.in_bulk({d for _, d in pairs})
    lengths = [
        len(provider.prompt_shown(judge, template, topics[t], " ".join(filter(None, (documents[d].title,
                                                                                    documents[d].body)))))
        for t, d in pairs
    ]  # fmt: skip
    return sum(lengths) / len(lengths) / CHARS_PER_TOKEN


def failure_class(reason: str) -> str:
    """A failure's class, what groups it: its reason's words before any detail ("HTTP 429" of "HTTP 429: slow down",
    "timed out", "unreadable reply")."""
    return reason.split(":", 1)[0].strip() or "unknown"


def judge_spending(*, judge: MachineJudge, examples: int = 3) -> dict:
    """What a judge's replies under its current configuration cost and how they went: tokens, money (where the judge
    has prices per 1,000 tokens; what batches answered at the batch price, `batch_discount` off), latency p50/p95 of
    the answered calls, and the failures grouped by class, most frequent first, each with up to `examples` pairs and
    their reasons."""
    replies = MachineReply.objects.filter(judge=judge, configuration=judge.configuration)
    rows = list(
        replies.order_by("id").values_list(
            "topic__number", "document__docno", "failure", "prompt_tokens", "completion_tokens", "seconds", "batch_id"
        )
    )
    prompt = sum(r[3] for r in rows)
    completion = sum(r[4] for r in rows)
    seconds = sorted(r[5] for r in rows if not r[2] and r[5] > 0)
    discount = batch_price_factor(judge)  # what batches answered, at the judge's discount now
    batched = [sum(r[3] for r in rows if r[6] is not None), sum(r[4] for r in rows if r[6] is not None)]
    groups: dict[str, dict] = {}
    for topic, docno, failure, *_ in rows:
        if failure:
            group = groups.setdefault(failure_class(failure), {"count": 0, "examples": []})
            group["count"] += 1
            if len(group["examples"]) < examples:
                group["examples"].append({"topic": topic, "docno": docno, "reason": failure})
    cost = None
    if judge.price_prompt is not None or judge.price_completion is not None:
        online = (prompt - batched[0], completion - batched[1])
        prices = (float(judge.price_prompt or 0), float(judge.price_completion or 0))
        cost = (online[0] * prices[0] + online[1] * prices[1]
                + (batched[0] * prices[0] + batched[1] * prices[1]) * discount) / 1000  # fmt: skip
    return {
        "replies": len(rows),
        "tokens": {"prompt": prompt, "completion": completion},
        "cost": None if cost is None else round(cost, 6),
        "latency": {"p50": _quantile(seconds, 0.5), "p95": _quantile(seconds, 0.95)},
        "failures": [
            {"class": name, **group} for name, group in sorted(groups.items(), key=lambda g: (-g[1]["count"], g[0]))
        ],
    }


def _quantile(ordered: list[float], q: float) -> float | None:
    """The q-quantile of sorted values, nearest rank (what a latency figure is), None without any."""
    if not ordered:
        return None
    return round(ordered[min(len(ordered) - 1, max(0, math.ceil(q * len(ordered)) - 1))], 3)


def probe_source_pairs(*, judge: MachineJudge) -> list[tuple[int, int]]:
    """(topic id, document id) of the pooled pairs every counted person who labelled them called not relevant and
    the judge itself labelled not relevant too: the documents gullibility probes are built from."""
    collection = judge.collection
    threshold = collection.relevance_threshold
    people: dict[tuple[int, int], int] = {}
    counted = sources.counted_labels(collection=collection).filter(grade__isnull=False)
    for topic_id, document_id, grade in counted.values_list("topic_id", "document_id", "grade"):
        people[(topic_id, document_id)] = max(grade, people.get((topic_id, document_id), grade))
    own = Judgment.objects.filter(assessor_id=judge.account_id, topic__collection=collection, grade__lt=threshold)
    judge_says_no = set(own.values_list("topic_id", "document_id"))
    return sorted(pair for pair, grade in people.items() if grade < threshold and pair in judge_says_no)


def gullibility(*, judge: MachineJudge) -> dict | None:
    """What the judge's last probes found, for a flag on every page that uses its labels: {"worst", "kind",
    "flagged", "current", "limit", "kinds"} where `flagged` says its worst kind's flip share is over the stated
    limit (settings.MACHINE_GULLIBILITY_LIMIT) and `current` that the probes measured its present configuration.
    None when it was never probed."""
    report = judge.probes
    if not report or not report.get("kinds"):
        return None
    shares = {kind: row["share"] for kind, row in report["kinds"].items() if row.get("share") is not None}
    kind = max(shares, key=shares.get) if shares else None
    limit = settings.MACHINE_GULLIBILITY_LIMIT
    return {
        "worst": shares.get(kind) if kind else None,
        "kind": kind,
        "label": report["kinds"][kind].get("label", kind) if kind else None,
        "flagged": kind is not None and shares[kind] > limit,
        "current": report.get("configuration") == judge.configuration,
        "limit": limit,
        "kinds": report["kinds"],
        "at": report.get("at"),
        "sources": report.get("sources"),
    }


def machine_names(*, collection) -> dict[int, str]:
    """{account id: judge name} of the collection's machine judges: a machine is shown by this name everywhere."""
    return dict(MachineJudge.objects.filter(collection=collection).values_list("account_id", "name"))


def gullible_machines(*, collection, judges=None) -> dict[int, dict]:
    """{account id: `gullibility`} of the collection's machine judges whose last probes flagged them: the one reading
    every page that shows a machine's labels, or a figure built from them, takes its flag from. `judges`, the
    collection's MachineJudge rows when the caller has read them."""
    judges = MachineJudge.objects.filter(collection=collection) if judges is None else judges
    found = {}
    for judge in judges:
        report = gullibility(judge=judge) if judge.probes else None
        if report and report["flagged"]:
            found[judge.account_id] = {**report, "name": judge.name, "advisory": None}
    if found:
        advisory = sources.advisory_accounts(collection=collection)
        for account_id, report in found.items():
            report["advisory"] = account_id in advisory
    return found


def machines_shown(*, collection) -> tuple[dict[int, str], dict[int, dict]]:
    """({account id: judge name}, `gullible_machines`) in one read of the collection's judges."""
    judges = list(MachineJudge.objects.filter(collection=collection))
    return {j.account_id: j.name for j in judges}, gullible_machines(collection=collection, judges=judges)


def gullible_flag(report: dict) -> dict:
    """A gullibility report as a flag of the reliability table (kind, from, reason), as a person's drift is one."""
    return {
        "kind": "gullible",
        "from": None,
        "reason": f"its gullibility probes flipped {report['worst']:.2f} of the probes with {report['label']} to "
        f"relevant, over the limit of {report['limit']:.2f}"
        + ("" if report["current"] else " (measured under an earlier configuration)"),
    }


def vote_share(votes: list[int] | None, grade: int | None) -> float | None:
    """The share of a sampled label's votes that gave its grade (None for a label asked once)."""
    if not votes or grade is None:
        return None
    return round(votes.count(grade) / len(votes), 4)
