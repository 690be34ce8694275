"""Every plot as a file: `plots/<name>.<svg|png>` with the plot's parameters in the query string. Pages show the SVG
in an <img>; `download=1` makes it an attachment. Bad parameters get a 400 naming them."""

from __future__ import annotations

from collections.abc import Callable

from django.contrib.auth.decorators import login_required
from django.core.exceptions import BadRequest
from django.http import HttpRequest, HttpResponse
from matplotlib.figure import Figure

from config.ids import id_given
from evaluation import selectors
from evaluation.agreement import reliability
from evaluation.analysis import selectors as analysis
from evaluation.analysis.core import curves, plots
from evaluation.cached_reads import cached_for_version, version_of
from evaluation.files import collection_slug
from evaluation.online import selectors as online_selectors
from evaluation.online.core.measures import RATE_UNITS
from evaluation.pages import chosen_measure, chosen_run, chosen_runs, researcher_collection
from judging.models import Collection
from judging.permissions import sees_assessors
from judging.quality.core import WINDOW

PLOT_CACHE_SECONDS = 3600


def _precision_recall(request: HttpRequest, collection: Collection) -> Figure:
    runs = chosen_runs(collection, request.GET.getlist("runs"))
    return plots.precision_recall(analysis.precision_recall(collection=collection, runs=runs), curves.RECALL_LEVELS)


def _roc(request: HttpRequest, collection: Collection) -> Figure:
    runs = chosen_runs(collection, request.GET.getlist("runs"))
    found = analysis.roc(collection=collection, runs=runs)
    return plots.roc({tag: (c.false_positive_rate, c.true_positive_rate, c.partial_auc) for tag, c in found.items()})


def _topics(request: HttpRequest, collection: Collection) -> Figure:
    run = chosen_run(collection, request.GET.get("run"), "run")
    measure = chosen_measure(collection, request.GET.get("measure"))
    values = analysis.run_topic_values(run=run, measure=measure)
    return plots.topic_bars(
        [t for t, _ in values], [v for _, v in values], ylabel=measure, title=f"{run.tag}: {measure} per topic"
    )


def _histogram(request: HttpRequest, collection: Collection) -> Figure:
    run = chosen_run(collection, request.GET.get("run"), "run")
    measure = chosen_measure(collection, request.GET.get("measure"))
    values = [v for _, v in analysis.run_topic_values(run=run, measure=measure)]
    return plots.histogram(values, measure=measure, title=f"{run.tag}: {measure} over {len(values)} topics")


def _differences(request: HttpRequest, collection: Collection) -> Figure:
    a, b = chosen_run(collection, request.GET.get("a"), "a"), chosen_run(collection, request.GET.get("b"), "b")
    measure = chosen_measure(collection, request.GET.get("measure"))
    found = analysis.runs_compare(collection=collection, a=a, b=b, measure=measure, trials=1)
    return plots.topic_bars(
        [t.topic for t in found.topics],
        [t.difference for t in found.topics],
        ylabel=f"{measure}: {a.tag} − {b.tag}",
        title=f"Per-topic difference in {measure}",
    )


def _matrices(request: HttpRequest, collection: Collection) -> analysis.AgreementMatrices:
    found = analysis.agreement_matrices(collection=collection, reveal=sees_assessors(request.user, collection))
    if found is None:
        raise BadRequest("no agreement has been computed yet: no item has labels from two assessors")
    return found


def _kappa(request: HttpRequest, collection: Collection) -> Figure:
    found = _matrices(request, collection)
    return plots.matrix(
        found.kappa,
        found.names,
        found.names,
        row_label="Assessor",
        column_label="Assessor",
        title="Cohen's kappa between assessors (items both judged)",
        value_format="{:.2f}",
        limits=(-1.0, 1.0),
    )


def _confusion(request: HttpRequest, collection: Collection) -> Figure:
    found = _matrices(request, collection)
    pair = (request.GET.get("row", ""), request.GET.get("column", ""))
    if pair not in found.confusion:
        known = "; ".join(f"{a} vs {b}" for a, b in sorted(found.confusion))
        raise BadRequest(f"no confusion matrix for {pair[0]!r} vs {pair[1]!r}; there are: {known}")
    categories = [str(c) for c in found.categories]
    return plots.matrix(
        found.confusion[pair],
        categories,
        categories,
        row_label=f"Grade given by {pair[0]}",
        column_label="Consensus grade" if pair[1] == "consensus" else f"Grade given by {pair[1]}",
        title=f"{pair[0]} vs {pair[1]}: items by grade",
    )


def _search_log(request: HttpRequest, collection: Collection):
    value = request.GET.get("log", "")
    found = collection.search_logs.filter(pk=id_given(value)).first() if id_given(value) else None
    if found is None:
        raise BadRequest(f"no search log {value!r} in this collection")
    return found


def _online_rate(request: HttpRequest, collection: Collection) -> Figure:
    unit = request.GET.get("rate", "day")
    if unit not in RATE_UNITS:
        raise BadRequest(f"rate must be one of {', '.join(RATE_UNITS)}")
    figures = online_selectors.search_log_figures(search_log=_search_log(request, collection), rate=unit)
    figures = figures or {"rate": [], "rate_unit": unit}
    rows = figures["rate"]
    return plots.query_rate(
        [r["bucket"] for r in rows], [r["queries"] for r in rows], [r["spike"] for r in rows], unit=figures["rate_unit"]
    )


def _online_positions(request: HttpRequest, collection: Collection) -> Figure:
    figures = online_selectors.search_log_figures(search_log=_search_log(request, collection))
    if not figures:
        return plots.ctr_by_position({})
    curves = {arm: values["ctr_at"] for arm, values in figures["arms"].items()} or {
        "all queries": figures["overall"]["ctr_at"]
    }
    return plots.ctr_by_position({arm: c for arm, c in curves.items() if c})


def _online_frequency(request: HttpRequest, collection: Collection) -> Figure:
    return plots.rank_frequency(online_selectors.search_log_query_counts(search_log=_search_log(request, collection)))


def _reliability(request: HttpRequest, collection: Collection) -> Figure:
    series = reliability.agreement_over_time(collection=collection, reveal=sees_assessors(request.user, collection))
    return plots.agreement_over_time(series, window=WINDOW)


def _reliability_grades(request: HttpRequest, collection: Collection) -> Figure:
    series = reliability.relevant_over_time(collection=collection, reveal=sees_assessors(request.user, collection))
    return plots.relevant_over_time(series, window=WINDOW)


PLOTS: dict[str, Callable[[HttpRequest, Collection], Figure]] = {
    "precision-recall": _precision_recall,
    "roc": _roc,
    "topics": _topics,
    "histogram": _histogram,
    "differences": _differences,
    "kappa": _kappa,
    "confusion": _confusion,
    "online-rate": _online_rate,
    "online-positions": _online_positions,
    "online-frequency": _online_frequency,
    "reliability": _reliability,
    "reliability-grades": _reliability_grades,
}


@login_required
def _rendered(request: HttpRequest, collection: Collection, name: str, fmt: str) -> bytes:
    """The plot's file, from the cache when the same plot of the same data was drawn before (drawing takes a
    matplotlib figure 50-300 ms; a results page shows several). Keyed by the collection's results version, the
    plot, its parameters and whether the reader sees assessors' names; never cached while results are stale."""
    version = selectors.results_version(collection=collection)
    query = sorted((k, v) for k in request.GET if k != "download" for v in request.GET.getlist(k))
    key = "plot:" + version_of(name, fmt, query, sees_assessors(request.user, collection))
    return cached_for_version(
        key, version, lambda: plots.render(PLOTS[name](request, collection), fmt), seconds=PLOT_CACHE_SECONDS
    )


def plot(request: HttpRequest, collection_id: int, name: str, fmt: str) -> HttpResponse:
    collection = researcher_collection(request, collection_id)
    if name not in PLOTS:
        raise BadRequest(f"no plot {name!r}; there are: {', '.join(PLOTS)}")
    if fmt not in plots.FORMATS:
        raise BadRequest(f"format must be one of {', '.join(plots.FORMATS)}")
    body = _rendered(request, collection, name, fmt)
    response = HttpResponse(body, content_type=plots.FORMATS[fmt])
    if request.GET.get("download"):
        response["Content-Disposition"] = f'attachment; filename="{collection_slug(collection)}-{name}.{fmt}"'
    return response
