"""trec_eval's text output, shared by the command line's input modes: per-topic lines (with -q), then the summary
("all") lines, runid and num_q first when asked for. Values come formatted, so each mode keeps its own formats."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TextIO


def write_run(
    out: TextIO,
    tag: str,
    topics: Iterable[tuple[str, Iterable[tuple[str, str]]]],
    summary: Iterable[tuple[str, str]],
    *,
    per_topic: bool,
    with_summary: bool,
    runid: bool,
    num_q: int | None,
) -> None:
    """`topics`: (topic, [(measure, formatted value)]) in print order; `summary`: [(measure, formatted value)];
    `num_q`: the number of topics, printed when not None."""
    if per_topic:
        for topic, values in topics:
            for name, text in values:
                out.write(f"{name:<22}\t{topic}\t{text}\n")
    if not with_summary:
        return
    if runid:
        out.write(f"{'runid':<22}\tall\t{tag}\n")
    if num_q is not None:
        out.write(f"{'num_q':<22}\tall\t{num_q}\n")
    for name, text in summary:
        out.write(f"{name:<22}\tall\t{text}\n")
