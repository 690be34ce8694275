"""The estimate's pages: the leaderboard's card of machine-assisted values with their intervals (a partial the
leaderboard loads), and the admins' draw of topics for people to judge."""

from __future__ import annotations

import json

from django.contrib import messages
from django.core.exceptions import BadRequest, ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET, require_POST

from config.forms import service_errors_shown
from evaluation.estimate import selectors, services
from evaluation.estimate.core import DEFAULT_LEVEL, METHOD
from evaluation.estimate.forms import DrawForm
from evaluation.pages import researcher_collection
from judging.machines.models import MachineJudge
from judging.models import ROLE_ADMIN
from judging.permissions import role_required, user_roles

PAIRS_SHOWN = 50


def _level(text: str | None) -> float:
    try:
        level = float(text) if text else DEFAULT_LEVEL
    except ValueError as error:
        raise BadRequest(f"level: {text!r} is not a number") from error
    if not 0 < level < 1:
        raise BadRequest(f"level: must be between 0 and 1, not {level}")
    return level


def _judge_id(text: str | None) -> int | None:
    if not text:
        return None
    if not text.isdigit():
        raise BadRequest(f"judge: {text!r} is not a machine judge's id")
    return int(text)


@require_GET
def estimate_card(request: HttpRequest, collection_id: int) -> HttpResponse:
    collection = researcher_collection(request, collection_id)
    level = _level(request.GET.get("level"))
    judge = selectors.estimate_judge(collection=collection, judge_id=_judge_id(request.GET.get("judge")))
    estimate = selectors.collection_estimate(collection=collection, judge=judge, level=level) if judge else None
    context = {
        "collection": collection,
        "estimate": estimate,
        "judges": MachineJudge.objects.filter(collection=collection).order_by("name"),
        "levels": selectors.LEVELS,
        "is_admin": ROLE_ADMIN in user_roles(request.user),
    }
    if estimate is not None and estimate.report:
        context |= _shown(estimate)
    return render(request, "evaluation/_estimate.html", context)


def _shown(estimate) -> dict:
    """The card's rows: each run's values of each measure, and the pairs of the first measure (not separated
    first), with what judging more topics would do."""
    report = estimate.report
    measures = list(next(iter(report["runs"].values()), {}))
    left = estimate.topics - len(estimate.people_topics)
    pairs = [p for p in report["pairs"] if measures and p["measure"] == measures[0]]
    pairs.sort(key=lambda p: (p["separated"], p["a"], p["b"]))
    for pair in pairs:
        needed = pair["more_topics_needed"]
        pair["beyond"] = needed is not None and needed > left
    wanted = [p["more_topics_needed"] for p in pairs if p["more_topics_needed"] and not p["beyond"]]
    reasons: list[str] = []
    for values in report["runs"].values():
        for entry in values.values():
            if entry.get("reason"):
                if entry["reason"] not in reasons:
                    reasons.append(entry["reason"])
                entry["note"] = reasons.index(entry["reason"]) + 1
    return {
        "reasons": reasons,
        "measures": measures,
        "rows": [(run, [values[m] for m in measures]) for run, values in report["runs"].items()],
        "pairs": pairs[:PAIRS_SHOWN],
        "pairs_left_out": max(len(pairs) - PAIRS_SHOWN, 0),
        "separated": sum(p["separated"] for p in pairs),
        "topics_left": left,
        "suggested_draw": min(max(wanted, default=1), left) if left else 0,
    }


@role_required(ROLE_ADMIN)
@require_POST
def estimate_draw(request: HttpRequest, collection_id: int) -> HttpResponse:
    """Draws topics at random for people to judge; the admin then assigns them."""
    collection = researcher_collection(request, collection_id)
    form = DrawForm(request.POST)
    drawn = None
    if form.is_valid():
        try:
            drawn = services.topics_draw(collection=collection, count=form.cleaned_data["count"], drawn_by=request.user)
        except ValidationError as error:
            service_errors_shown(form, error)
    if drawn is None:
        messages.error(request, "; ".join(f"{field}: {' '.join(errors)}" for field, errors in form.errors.items()))
    elif drawn:
        numbers = ", ".join(t.number for t in drawn)
        messages.success(request, f"Drawn at random for people to judge: topic{'s' if len(drawn) > 1 else ''} "
                                  f"{numbers}. Assign them, and have every pooled document judged.")  # fmt: skip
    else:
        messages.info(request, "No topic is left to draw: people judged or were given every topic.")
    return redirect("judging:campaign_assignments", collection_id=collection.id)


def _collection_estimate(request: HttpRequest, collection_id: int):
    collection = researcher_collection(request, collection_id)
    judge = selectors.estimate_judge(collection=collection, judge_id=_judge_id(request.GET.get("judge")))
    level = _level(request.GET.get("level"))
    return collection, (
        selectors.collection_estimate(collection=collection, judge=judge, level=level) if judge else None
    )


@require_GET
def estimate_pair(request: HttpRequest, collection_id: int) -> HttpResponse:
    """The comparison page's difference interval for its two runs (a partial it loads): PPI on the per-topic
    differences of `a` − `b` on `measure`."""
    collection, estimate = _collection_estimate(request, collection_id)
    tags = dict(collection.runs.values_list("id", "tag"))
    a, b = (tags.get(int(v)) if (v := request.GET.get(k, "")).isdigit() else None for k in ("a", "b"))
    measure = request.GET.get("measure", "")
    pair = None
    for row in estimate.report.get("pairs", []) if estimate else []:
        if row["measure"] == measure and {row["a"], row["b"]} == {a, b}:
            pair = row if row["a"] == a else _reversed(row)
    context = {"collection": collection, "estimate": estimate, "pair": pair, "a": a, "b": b, "measure": measure}
    if estimate is not None:
        context["topics_left"] = estimate.topics - len(estimate.people_topics)
    return render(request, "evaluation/_estimate_pair.html", context)


def _reversed(row: dict) -> dict:
    """The pair seen the other way round: b − a."""
    flipped = {"a": row["b"], "b": row["a"]}
    for key in ("difference", "low", "high"):
        flipped[key] = None if row[key] is None else -row[key]
    flipped["low"], flipped["high"] = flipped["high"], flipped["low"]
    return row | flipped


@require_GET
def estimate_trust(request: HttpRequest, collection_id: int) -> HttpResponse:
    """The machine-judge page's λ per measure (how much the estimate trusts the judge: 0 not at all, 1 fully), over
    the runs (a partial it loads)."""
    collection, estimate = _collection_estimate(request, collection_id)
    trust = {}
    for values in (estimate.report.get("runs", {}) if estimate else {}).values():
        for measure, entry in values.items():
            if entry["lambda"] is not None:
                trust.setdefault(measure, []).append(entry["lambda"])
    rows = [(m, min(v), sum(v) / len(v), max(v)) for m, v in trust.items()]
    return render(request, "evaluation/_estimate_trust.html", {"collection": collection, "estimate": estimate,
                                                                 "rows": rows})  # fmt: skip


@require_GET
def estimate_download(request: HttpRequest, collection_id: int) -> HttpResponse:
    """The estimate as a JSON file, its provenance (method, judge, N, n, level, λ of each run and measure, whether
    the sample was random) in the X-Provenance header as in every export."""
    collection, estimate = _collection_estimate(request, collection_id)
    if estimate is None:
        raise BadRequest("no machine judge of this collection has labels to estimate from")
    report = estimate.report
    provenance = {
        "collection": collection.name, "method": METHOD, "judge": estimate.judge.name, "level": estimate.level,
        "topics": {"all": estimate.topics, "people": len(estimate.people_topics)}, "valid": estimate.valid,
        "lambda": {run: {m: e["lambda"] for m, e in values.items()} for run, values in report.get("runs", {}).items()},
    }  # fmt: skip
    body = {"provenance": provenance, "exact": estimate.exact, "not_random": estimate.not_random, **report}
    response = HttpResponse(json.dumps(body, allow_nan=False), content_type="application/json; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{collection.name}-estimate.json"'
    response["X-Provenance"] = json.dumps(provenance, ensure_ascii=True)
    return response
