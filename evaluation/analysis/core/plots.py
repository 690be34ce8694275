"""Charts drawn on the server with matplotlib, pure (no Django): numbers in, SVG or PNG bytes out.

The object-oriented API (`Figure`, never `pyplot`) keeps rendering free of global state, so the web server's threads
can draw at once. SVG keeps its text as text and carries no date, so the same data gives the same file.
"""

from __future__ import annotations

import io
import math
from collections.abc import Mapping, Sequence

import matplotlib
import numpy as np
from matplotlib.figure import Figure
from matplotlib.text import Text
from matplotlib.ticker import FuncFormatter, MaxNLocator, NullFormatter

FORMATS = {"svg": "image/svg+xml", "png": "image/png"}
_STYLE = {
    "svg.fonttype": "none",
    "svg.hashsalt": "relevance-workbench",
    "font.size": 9,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.grid": True,
    "grid.alpha": 0.3,
}
_SIZE = (6.4, 3.8)


def render(figure: Figure, fmt: str) -> bytes:
    if fmt not in FORMATS:
        raise ValueError(f"format must be one of {', '.join(FORMATS)}, not {fmt!r}")
    for text in figure.findobj(Text):  # run tags and names are plain text: "$x$" must not be read as mathtext
        text.set_parse_math(False)
    buffer = io.BytesIO()
    with matplotlib.rc_context(_STYLE):
        figure.savefig(buffer, format=fmt, dpi=150, bbox_inches="tight", metadata=_metadata(fmt))
    return buffer.getvalue()


def _metadata(fmt: str) -> dict:
    return {"Date": None, "Creator": "relevance-workbench"} if fmt == "svg" else {"Software": "relevance-workbench"}


def _figure(size=_SIZE) -> tuple[Figure, object]:
    with matplotlib.rc_context(_STYLE):
        figure = Figure(figsize=size, layout="constrained")
        return figure, figure.add_subplot()


def _message(axes, text: str) -> None:
    axes.text(0.5, 0.5, text, ha="center", va="center", transform=axes.transAxes, color="0.4")


def _legend_or_message(axes, drawn: bool, empty: str) -> None:
    """A legend for the lines drawn, or, with none, the reason in the middle of the axes."""
    if drawn:
        axes.legend(loc="upper right", fontsize=8)
    else:
        _message(axes, empty)


def precision_recall(curves: Mapping[str, Sequence[float]], levels: Sequence[float]) -> Figure:
    """Interpolated precision at each recall level, one line per run."""
    figure, axes = _figure()
    for label, precision in curves.items():
        axes.plot(levels, precision, marker="o", markersize=3, label=label)
    axes.set(xlabel="Recall", ylabel="Interpolated precision", xlim=(0, 1), ylim=(0, 1.02))
    axes.set_title("Precision–recall (interpolated, mean over topics)")
    _legend_or_message(axes, bool(curves), "Choose runs to draw")
    return figure


def roc(curves: Mapping[str, tuple[np.ndarray, np.ndarray, float]]) -> Figure:
    """ROC curves (false positive rate, true positive rate, partial AUC) with the chance diagonal."""
    figure, axes = _figure((5.2, 4.6))
    axes.plot([0, 1], [0, 1], linestyle="--", color="0.6", linewidth=1, label="chance")
    for label, (fpr, tpr, auc) in curves.items():
        axes.plot(fpr, tpr, label=f"{label} (partial AUC {auc:.3f})")
    axes.set(xlabel="False positive rate (judged non-relevant)", ylabel="True positive rate (recall)")
    axes.set(xlim=(0, 1), ylim=(0, 1.02))
    axes.set_title("ROC, averaged over topics rank by rank")
    axes.legend(loc="lower right", fontsize=8)
    return figure


def topic_bars(topics: Sequence[str], values: Sequence[float | None], *, ylabel: str, title: str) -> Figure:
    """One bar per topic; undefined values are left as gaps. Negative values (differences) go below the axis."""
    figure, axes = _figure((max(6.4, 0.18 * len(topics)), 3.8))
    heights = [math.nan if v is None else v for v in values]
    colours = ["#2b6cb0" if (h != h or h >= 0) else "#c05621" for h in heights]
    axes.bar(range(len(topics)), heights, color=colours, width=0.8)
    axes.set_xticks(range(len(topics)), topics, rotation=90 if len(topics) > 12 else 0, fontsize=7)
    axes.set(xlabel="Topic", ylabel=ylabel)
    axes.axhline(0, color="0.3", linewidth=0.8)
    axes.set_title(title)
    if not topics:
        _message(axes, "No evaluated topics yet")
    return figure


def histogram(values: Sequence[float | None], *, measure: str, title: str, bins: int = 10) -> Figure:
    """Distribution of a [0, 1] measure over topics, in equal-width bins."""
    figure, axes = _figure()
    defined = [v for v in values if v is not None and v == v]
    upper = max(1.0, max(defined, default=1.0))
    axes.hist(defined, bins=bins, range=(0, upper), color="#2b6cb0", edgecolor="white")
    axes.set(xlabel=measure, ylabel="Topics")
    axes.yaxis.set_major_locator(MaxNLocator(integer=True))
    axes.set_title(title)
    if not defined:
        _message(axes, "No evaluated topics yet")
    return figure


def matrix(
    cells: Sequence[Sequence[float | None]],
    rows: Sequence[str],
    columns: Sequence[str],
    *,
    row_label: str,
    column_label: str,
    title: str,
    value_format: str = "{:.0f}",
    limits: tuple[float, float] | None = None,
) -> Figure:
    """A labelled matrix as a heatmap with its numbers written in: confusion matrices and agreement tables.
    Undefined cells stay blank."""
    data = np.array([[math.nan if v is None else v for v in row] for row in cells], dtype=float).reshape(
        len(rows), len(columns)
    )
    side = max(3.6, 0.55 * max(len(rows), len(columns)) + 2)
    figure, axes = _figure((side + 1, side))
    axes.grid(False)
    low, high = limits if limits else (0.0, float(np.nanmax(data)) if np.isfinite(data).any() else 1.0)
    image = axes.imshow(np.ma.masked_invalid(data), cmap="Blues", vmin=low, vmax=high or 1.0)
    figure.colorbar(image, ax=axes, shrink=0.8)
    axes.set_xticks(range(len(columns)), columns, rotation=45 if len(columns) > 6 else 0, ha="right")
    axes.set_yticks(range(len(rows)), rows)
    axes.set(xlabel=column_label, ylabel=row_label)
    axes.set_title(title)
    middle = low + (high - low) / 2
    for (i, j), value in np.ndenumerate(data):
        if value == value:
            colour = "white" if value > middle else "black"
            axes.text(j, i, value_format.format(value), ha="center", va="center", color=colour, fontsize=8)
    return figure


def query_rate(buckets: Sequence[str], counts: Sequence[int], spikes: Sequence[bool], *, unit: str) -> Figure:
    """Queries per time bucket, spikes (robust z above the threshold) marked."""
    figure, axes = _figure()
    x = np.arange(len(buckets))
    axes.plot(x, counts, color="#2b6cb0", linewidth=1.2, marker="o" if len(x) <= 60 else None, markersize=3)
    marked = [i for i, spike in enumerate(spikes) if spike]
    if marked:
        axes.scatter(marked, [counts[i] for i in marked], color="#c05621", zorder=3, label="spike")
        axes.legend(loc="upper right", fontsize=8)
    step = max(1, len(x) // 10)
    axes.set_xticks(
        x[::step],
        [b[: 16 if unit in ("minute", "hour") else 10] for b in buckets[::step]],
        rotation=45,
        ha="right",
        fontsize=7,
    )
    axes.set(xlabel=f"UTC {unit}", ylabel="Queries")
    axes.set_ylim(bottom=0)
    axes.set_title(f"Queries per {unit}")
    if not buckets:
        _message(axes, "No queries logged yet")
    return figure


def ctr_by_position(curves: Mapping[str, Mapping[int, float | None]], *, max_position: int = 20) -> Figure:
    """Result click-through at each rank position, one line per arm (or one for the whole log)."""
    figure, axes = _figure()
    for label, by_position in curves.items():
        positions = sorted(p for p in by_position if int(p) <= max_position)
        values = [math.nan if by_position[p] is None else by_position[p] for p in positions]
        axes.plot([int(p) for p in positions], values, marker="o", markersize=3, label=label)
    axes.set(xlabel="Rank position", ylabel="Clicks ÷ impressions")
    axes.set_ylim(bottom=0)
    axes.xaxis.set_major_locator(MaxNLocator(integer=True))
    axes.set_title("Click-through by position")
    _legend_or_message(axes, bool(curves), "No impressions logged yet (AOL logs have none)")
    return figure


def rank_frequency(counts: Sequence[int]) -> Figure:
    """Each distinct query's count against its rank, both on log scales (a straight line is Zipf's law)."""
    figure, axes = _figure()
    if counts:
        axes.loglog(np.arange(1, len(counts) + 1), counts, color="#2b6cb0", marker="." if len(counts) < 200 else None)
        for axis in (axes.xaxis, axes.yaxis):  # plain numbers: render() turns mathtext (10$^{3}$) off
            axis.set_major_formatter(FuncFormatter(lambda value, _: f"{value:,.0f}"))
            axis.set_minor_formatter(NullFormatter())
    else:
        _message(axes, "No queries logged yet")
    axes.set(xlabel="Query rank (by count)", ylabel="Times asked")
    axes.set_title(f"Query frequency: {len(counts)} distinct queries")
    return figure


def agreement_over_time(series: Mapping[str, Sequence[tuple[int, float | None]]], *, window: int) -> Figure:
    """Each assessor's share of judgments agreeing with the yardstick (gold, else the other assessors), per block of
    `window` judgments in the assessor's own order; blocks with nothing comparable are gaps."""
    figure, axes = _figure((6.4, 3.6))
    drawn = False
    for name, blocks in series.items():
        points = [(start, share) for start, share in blocks if share is not None]
        if points:
            axes.plot([s for s, _ in points], [v for _, v in points], marker="o", markersize=3, label=name)
            drawn = True
    axes.set(xlabel=f"Judgment (blocks of {window}, each assessor's own order)", ylabel="Agreeing", ylim=(0, 1.02))
    axes.set_title("Agreement with gold or the other assessors over time")
    _legend_or_message(axes, drawn, "No judgment can be compared yet")
    return figure


def relevant_over_time(series: Mapping[str, Sequence[tuple[int, float]]], *, window: int) -> Figure:
    """Each assessor's share of documents judged relevant per block of `window` judgments, in their own order."""
    figure, axes = _figure((6.4, 3.6))
    drawn = False
    for name, blocks in series.items():
        if blocks:
            axes.plot([s for s, _ in blocks], [v for _, v in blocks], marker="o", markersize=3, label=name)
            drawn = True
    axes.set(xlabel=f"Judgment (blocks of {window}, each assessor's own order)", ylabel="Judged relevant",
             ylim=(0, 1.02))  # fmt: skip
    axes.set_title("Grades over time: the share judged relevant")
    _legend_or_message(axes, drawn, "Nothing judged yet")
    return figure
