"""The pure part of a run's report: a topic's best, median and worst over the submitted runs, and the bars of the
per-topic plot (the run's difference from the median)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from statistics import median


def spread(values: Iterable[float | None]) -> tuple[float, float, float] | None:
    """(best, median, worst) of the defined values (None where a run's value is undefined is left out), the median
    of an even count being the mean of the two middle values; None when no value is defined."""
    defined = [value for value in values if value is not None]
    if not defined:
        return None
    return max(defined), float(median(defined)), min(defined)


def topic_rows(
    run_values: Mapping[str, Mapping[str, float | None]],
    submitted: Mapping[str, Iterable[Mapping[str, float | None]]],
) -> dict[str, dict[str, dict]]:
    """{topic: {measure: {value, best, median, worst}}} for each topic the run has a value for. `run_values` is
    {measure: {topic: value}}; `submitted` is, per measure, every submitted run's {topic: value} (this run's among
    them)."""
    rows: dict[str, dict[str, dict]] = {}
    for measure, per_topic in run_values.items():
        runs = list(submitted[measure])
        for topic, value in per_topic.items():
            found = spread(values.get(topic) for values in runs)
            best, middle, worst = found if found else (None, None, None)
            rows.setdefault(topic, {})[measure] = {"value": value, "best": best, "median": middle, "worst": worst}
    return rows


def median_bars(rows: Mapping[str, Mapping[str, dict]], measure: str) -> list[tuple[str, float | None]]:
    """(topic, the run's value minus the topic's median) for the plot, in topic order; None where undefined."""
    bars = []
    for topic in sorted(rows, key=topic_order):
        cell = rows[topic].get(measure)
        if cell is not None:
            defined = cell["value"] is not None and cell["median"] is not None
            bars.append((topic, cell["value"] - cell["median"] if defined else None))
    return bars


def topic_order(topic: str) -> tuple:
    """Topics in trec_eval's order of numbers (numeric ones by value, then the rest by name)."""
    return (0, int(topic), "") if topic.isdigit() else (1, 0, topic)


PLOT_WIDTH, PLOT_HEIGHT = 600.0, 200.0


def bar_shapes(bars: list[tuple[str, float | None]]) -> list[dict]:
    """The per-topic plot as SVG rectangles in a PLOT_WIDTH × PLOT_HEIGHT box, the zero line across its middle and
    the widest difference reaching an edge: {topic, value, x, y, width, height, above}; an undefined value draws no
    bar."""
    widest = max((abs(value) for _, value in bars if value is not None), default=0.0) or 1.0
    step = PLOT_WIDTH / max(len(bars), 1)
    middle = PLOT_HEIGHT / 2
    shapes = []
    for index, (topic, value) in enumerate(bars):
        height = 0.0 if value is None else max(middle * abs(value) / widest, 1.0)  # a tie with the median: a tick
        above = value is not None and value >= 0
        shapes.append({
            "topic": topic, "value": value, "x": round(index * step + step * 0.1, 2), "width": round(step * 0.8, 2),
            "y": round(middle - height if above else middle, 2), "height": round(height, 2), "above": above,
        })  # fmt: skip
    return shapes
