"""Results exports: every run × topic × measure as stored by the recompute pipeline, plus each run's aggregate
(the `all` rows), in trec_eval's `-q` text format, CSV or JSON (the shape of `python -m evaluation --json`)."""

from __future__ import annotations

import csv
import io
import json
import math
from collections.abc import Iterator

from evaluation import selectors
from evaluation.files import export_name, provenance, spreadsheet_text
from judging.models import Collection, Run, Topic
from measures import as_measures, output_name
from measures.aggregates import aggregate_of

FORMATS = {"trec": "txt", "csv": "csv", "json": "json"}


def _aggregate_kinds(collection: Collection) -> dict[str, str]:
    kinds = {}
    for name in collection.measures:
        try:
            kinds[name] = as_measures([name])[0].spec.aggregate
        except ValueError:
            kinds[name] = "mean"
    return kinds


def _trec_names(collection: Collection) -> dict[str, str]:
    """Each chosen measure under the name trec_eval prints (`P_5`, `map`, `ndcg_cut_10`); a measure trec_eval does
    not have keeps its own name."""
    names = {}
    for name in collection.measures:
        try:
            names[name] = output_name(as_measures([name])[0])
        except ValueError:
            names[name] = name
    return names


def _trec_value(value: float | None, kind: str) -> str:
    if value is None or math.isnan(value):
        return "nan"
    return str(round(value)) if aggregate_of(kind).summed else f"{value:.4f}"


def _runs(collection: Collection, runs: list[str] | None):
    selected = Run.objects.filter(collection=collection).order_by("tag")
    return selected.filter(tag__in=runs) if runs else selected


def result_rows(collection: Collection, runs: list[str] | None = None) -> Iterator[tuple[str, str, str, float | None]]:
    """(run tag, topic number or "all", measure, value) in a stable order: run tag, topic, the collection's
    measure order; each run's per-topic rows stream from the database, then its `all` rows."""
    order = list(collection.measures)
    chosen = list(_runs(collection, runs))
    values = selectors.topic_values(collection_id=collection.id, measures=order, run_ids=[run.id for run in chosen])
    aggregates = selectors.run_aggregates(collection_id=collection.id, measures=order)
    numbers = dict(Topic.objects.filter(collection=collection).values_list("id", "number"))
    for run in chosen:
        topic_ids = sorted({topic_id for measure in order for topic_id in values[measure][run.id]})
        for topic_id in topic_ids:
            for measure in order:
                if topic_id in values[measure][run.id]:
                    yield run.tag, numbers[topic_id], measure, values[measure][run.id][topic_id]
        for measure in order:
            if measure in aggregates.get(run.id, {}):
                yield run.tag, "all", measure, aggregates[run.id][measure][0]


def result_lines(collection: Collection, fmt: str, runs: list[str] | None = None, meta: dict | None = None):
    """Serialises `result_rows`: "trec" is trec_eval -q's `measure<TAB>topic<TAB>value` (trec_eval's measure names)
    with a `runid all TAG` row
    per run; "csv" has a header; "json" is {"provenance", "results": {run: {topic: {m: v}}}, "aggregates"} at full
    precision, written run by run."""
    rows = result_rows(collection, runs)
    if fmt == "trec":
        kinds = _aggregate_kinds(collection)
        names = _trec_names(collection)
        last_run = None
        for tag, topic, measure, value in rows:
            if tag != last_run:
                yield f"{'runid':<22}\tall\t{tag}\n"
                last_run = tag
            yield f"{names[measure]:<22}\t{topic}\t{_trec_value(value, kinds.get(measure, 'mean'))}\n"
    elif fmt == "csv":
        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator="\n")
        writer.writerow(["run", "topic", "measure", "value"])
        for tag, topic, measure, value in rows:
            writer.writerow(
                [spreadsheet_text(tag), spreadsheet_text(topic), measure, "" if value is None else repr(value)]
            )
            yield buffer.getvalue()
            buffer.seek(0)
            buffer.truncate()
        yield buffer.getvalue()
    elif fmt == "json":
        yield from _json_lines(rows, meta or {})
    else:
        raise ValueError(f"unknown format {fmt!r}; one of {', '.join(FORMATS)}")


def _json_lines(rows, meta: dict) -> Iterator[str]:
    yield '{"provenance": ' + json.dumps(meta) + ', "results": {'
    aggregates: dict[str, dict[str, float | None]] = {}
    run_open = topic_open = None
    for tag, topic, measure, value in rows:
        if topic == "all":
            aggregates.setdefault(tag, {})[measure] = value
            continue
        if tag != run_open:
            yield ("}}, " if run_open is not None else "") + json.dumps(tag) + ": {"
            run_open, topic_open, first_measure = tag, None, True
        if topic != topic_open:
            yield ("}, " if topic_open is not None else "") + json.dumps(topic) + ": {"
            topic_open, first_measure = topic, True
        yield ("" if first_measure else ", ") + json.dumps(measure) + ": " + json.dumps(value)
        first_measure = False
    if run_open is not None:
        yield "}}"
    yield '}, "aggregates": ' + json.dumps(aggregates) + "}\n"


def results_export(*, collection: Collection, fmt: str, runs: list[str] | None = None):
    """(file name, provenance, lines) of a results export."""
    if fmt not in FORMATS:
        raise ValueError(f"unknown format {fmt!r}; one of {', '.join(FORMATS)}")
    meta = provenance(collection, kind="results", measures=list(collection.measures), runs=runs or "all")
    name = export_name(collection, "results", meta["qrels_version"], FORMATS[fmt])
    return name, meta, result_lines(collection, fmt, runs, meta)
