"""The online page of a collection: its search logs' measures, A/B comparison and plots, and (for admins) logs'
creation, uploads, settings, implicit judgments from clicks and topics sampled from traffic."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST

from evaluation.online import selectors as online_selectors
from evaluation.online import services as search_logs
from evaluation.online.core.ab import MIN_SESSIONS
from evaluation.online.core.measures import BUCKETS, MAX_RATE_BUCKETS, RATE_UNITS, RATIO_REGISTRY
from evaluation.online.forms import (
    ImplicitJudgmentsForm,
    SearchLogForm,
    SearchLogSettingsForm,
    SearchLogUploadForm,
    TrafficTopicsForm,
)
from evaluation.online.models import SearchLog
from evaluation.pages import researcher_collection
from judging.models import ROLE_ADMIN
from judging.permissions import admin_required, user_roles


def measure_labels() -> dict[str, str]:
    """The page's name of each figure: the counts, then every registered ratio."""
    return {"queries": "Queries", "sessions": "Sessions", **{n: r.label for n, r in RATIO_REGISTRY.items()}}


COUNTS = ("queries", "sessions")


def _shown(name: str, value) -> str:
    if value is None:
        return "undefined"
    return f"{value:,}" if name in COUNTS else f"{value:.3f}"


def _measure_rows(values: dict) -> list[dict]:
    return [
        {"name": name, "label": label, "value": _shown(name, values.get(name))}
        for name, label in measure_labels().items()
        if name in values
    ]


def _ab_table(ab: dict | None) -> dict | None:
    """The A/B comparison as rows a template can lay out: per measure, per arm, the value with its interval and,
    beside the control, the difference with its interval and p-value."""
    if not ab or not ab["arms"]:
        return None
    arms = sorted(ab["arms"], key=lambda arm: (arm != ab["control"], arm))
    rows = []
    for name, label in measure_labels().items():
        if name in COUNTS:
            continue
        cells = []
        for arm in arms:
            cell = ab["arms"][arm].get(name, {})
            value, low, high = cell.get("value"), cell.get("low"), cell.get("high")
            shown = {
                "value": _shown(name, value),
                "interval": None if low is None else f"{low:.3f}–{high:.3f}",
                "sessions": cell.get("sessions"),
            }
            shown["too_small"] = cell.get("too_small", False)
            if cell.get("difference") is not None:
                p_value = cell["p_value"]
                shown["difference"] = f"{cell['difference']:+.3f}"
                shown["difference_interval"] = f"{cell['difference_low']:+.3f}–{cell['difference_high']:+.3f}"
                shown["p_value"] = p_value_text(p_value)
                shown["significant"] = p_value is not None and p_value < 1 - ab["confidence"] and not cell["too_small"]
            cells.append(shown)
        rows.append({"name": name, "label": label, "cells": cells})
    small = sorted({arm for arm in arms for cell in ab["arms"][arm].values() if cell.get("sessions", 0) < MIN_SESSIONS})
    return {
        "control": ab["control"],
        "arms": arms,
        "rows": rows,
        "confidence": f"{ab['confidence']:.0%}",
        "alpha": f"{1 - ab['confidence']:.2g}",
        "too_small": small,
        "min_sessions": MIN_SESSIONS,
    }


def p_value_text(p_value: float | None) -> str:
    """A p-value as printed: three decimals, `< 0.001` below that (never 0: no finite sample proves a difference),
    `undefined` when neither arm varies."""
    if p_value is None:
        return "undefined"
    return "< 0.001" if p_value < 0.001 else f"{p_value:.3f}"


def _page(collection_id: int, search_log: SearchLog | None = None) -> str:
    url = reverse("evaluation:online", args=[collection_id])
    return f"{url}?log={search_log.pk}" if search_log else url


def _choice(request: HttpRequest, name: str, allowed, default: str) -> str:
    value = request.GET.get(name, default)
    return value if value in allowed else default


@login_required
def online(request: HttpRequest, collection_id: int) -> HttpResponse:
    collection = researcher_collection(request, collection_id)
    logs = list(collection.search_logs.all())
    chosen = request.GET.get("log", "")
    search_log = next((log for log in logs if str(log.pk) == chosen), logs[0] if logs else None)
    by = _choice(request, "by", BUCKETS, "day")
    rate = _choice(request, "rate", RATE_UNITS, "day")
    context = {
        "collection": collection,
        "logs": logs,
        "search_log": search_log,
        "by": by,
        "rate": rate,
        "buckets": BUCKETS,
        "rate_units": RATE_UNITS,
        "max_rate_buckets": MAX_RATE_BUCKETS,
        "is_admin": ROLE_ADMIN in user_roles(request.user),
        "new_form": SearchLogForm(),
    }
    if search_log is not None:
        figures = online_selectors.search_log_figures(search_log=search_log, by=by, rate=rate)
        context.update(
            figures=figures,
            overall=_measure_rows(figures["overall"]) if figures else [],
            ab=_ab_table(figures and figures["ab"]),
            by_rows=[
                {"bucket": b, "cells": [_shown(n, v[n]) if n in v else "—" for n in measure_labels()]}
                for b, v in (figures or {}).get("by", {}).items()
            ],
            measure_labels=list(measure_labels().values()),
            spikes=[row for row in (figures or {}).get("rate", []) if row["spike"]],
            correlations=online_selectors.online_offline(search_log=search_log),
            upload_form=SearchLogUploadForm(search_log=search_log),
            settings_form=SearchLogSettingsForm(initial=SearchLogSettingsForm.initial_for(search_log)),
            implicit_form=ImplicitJudgmentsForm(),
            traffic_form=TrafficTopicsForm(),
            plot_query=f"log={search_log.pk}",
        )
    return render(request, "evaluation/online.html", context)


def _form_errors(form) -> list[str]:
    return [
        " ".join(errors) if name == "__all__" else f"{name}: {' '.join(errors)}" for name, errors in form.errors.items()
    ]


def _admin_action(request: HttpRequest, form, act, back: str, refused: str = "") -> HttpResponse:
    """The one shape of the page's admin actions: a valid form runs `act(cleaned_data)`, which answers with a
    response (e.g. to a job's page) or a sentence to show; an invalid form or a service's refusal (ValidationError)
    is shown as an error, prefixed with `refused`. Otherwise back to `back`."""
    try:
        if not form.is_valid():
            raise ValidationError(_form_errors(form))
        outcome = act(form.cleaned_data)
    except ValidationError as error:
        messages.error(request, refused + "; ".join(error.messages))
        return redirect(back)
    if isinstance(outcome, HttpResponse):
        return outcome
    messages.success(request, outcome)
    return redirect(back)


@admin_required
@require_POST
def search_log_new(request: HttpRequest, collection_id: int) -> HttpResponse:
    collection = researcher_collection(request, collection_id)

    def create(data: dict) -> HttpResponse:
        return redirect(_page(collection.pk, search_logs.search_log_create(collection=collection, **data)))

    return _admin_action(request, SearchLogForm(request.POST), create, _page(collection.pk))


def _search_log(collection_id: int, log_id: int) -> SearchLog:
    return get_object_or_404(SearchLog.objects.select_related("collection"), pk=log_id, collection_id=collection_id)


@admin_required
@require_POST
def search_log_upload(request: HttpRequest, collection_id: int, log_id: int) -> HttpResponse:
    """Stores the files and imports them as a job; the job page shows its progress and any faulty lines."""
    search_log = _search_log(collection_id, log_id)
    form = SearchLogUploadForm(request.POST, request.FILES, search_log=search_log)

    def start(_data: dict) -> HttpResponse:
        job = search_logs.search_log_import_start(
            search_log=search_log, files=form.files_by_kind(), created_by=request.user
        )
        return redirect("judging:job", job_id=job.id)

    return _admin_action(request, form, start, _page(collection_id, search_log))


@admin_required
@require_POST
def search_log_settings(request: HttpRequest, collection_id: int, log_id: int) -> HttpResponse:
    search_log = _search_log(collection_id, log_id)
    form = SearchLogSettingsForm(request.POST)

    def configure(_data: dict) -> str:
        settings, arm_runs = form.as_settings()
        search_logs.search_log_configure(search_log=search_log, settings=settings, arm_runs=arm_runs)
        return "Settings saved; the figures below use them."

    return _admin_action(request, form, configure, _page(collection_id, search_log), refused="Settings not saved: ")


@admin_required
@require_POST
def implicit_judgments(request: HttpRequest, collection_id: int, log_id: int) -> HttpResponse:
    search_log = _search_log(collection_id, log_id)

    def record(data: dict) -> str:
        found = search_logs.implicit_judgments_import(search_log=search_log, imported_by=request.user, **data)
        return (
            f"{found['matched']} of {found['pairs']} (query, document) pairs with enough impressions matched a topic "
            f"and a document: {found['created']} judgments added, {found['updated']} changed, {found['unchanged']} "
            f"unchanged, as the assessor {found['assessor']}. {found['queries_without_topic']} queries are not "
            "topics. Agreement with the human assessors follows on the agreement page."
        )

    return _admin_action(request, ImplicitJudgmentsForm(request.POST), record, _page(collection_id, search_log))


@admin_required
@require_POST
def traffic_topics(request: HttpRequest, collection_id: int, log_id: int) -> HttpResponse:
    search_log = _search_log(collection_id, log_id)

    def sample(data: dict) -> str:
        found = search_logs.traffic_topics_create(search_log=search_log, **data)
        coverage = "no traffic" if found["coverage"] is None else f"{found['coverage']:.1%} of the logged queries"
        return (
            f"Sampled {len(found['queries'])} queries ({data['method']}, seed {data['seed']}), covering {coverage}: "
            f"{found['created']} topics added, {found['already_topics']} were topics already."
        )

    return _admin_action(request, TrafficTopicsForm(request.POST), sample, _page(collection_id, search_log))
