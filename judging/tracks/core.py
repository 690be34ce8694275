"""The pure rules of a track: a submitted run file checked as the track's own checker would (one run, every topic,
no topic the collection lacks, no docno twice in a topic, no deeper than the limit), and the submission window."""

from __future__ import annotations

from collections.abc import Collection, Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime

from measures.lines import Problem, Problems
from measures.trec_files import RunLine

# The readers name the topic column as trec_eval's files do; a participant reads the words of the track's rules.
REPORTED_FIELDS = {"qid": "topic"}


@dataclass
class CheckedRun:
    """What a file held once checked: its tag, {topic: {docno: (score, line)}}, and how many lines it ranked."""

    tag: str | None = None
    per_topic: dict[str, dict[str, tuple[float, int]]] = field(default_factory=dict)
    lines: int = 0


def run_checked(
    lines: Iterable[RunLine], problems: Problems, *, file: str, topics: Collection[str], depth: int
) -> CheckedRun:
    """Reads a submission's well-formed lines (the reader adds the malformed ones to `problems`) and adds a problem
    for each rule broken: a second run tag (a file is one run), a topic the collection lacks (once per topic), a docno
    ranked twice in a topic, more than `depth` documents for a topic (at the first line past it), and, for the file
    as a whole (line 0), the collection's topics the run leaves out, or no line at all."""
    run = CheckedRun()
    unknown: set[str] = set()
    tag_line = 0
    for line in lines:
        if run.tag is None:
            run.tag, tag_line = line.tag, line.line
        elif line.tag != run.tag:
            problems.add(file, line.line, "tag", f"a file is one run: line {tag_line} names run {run.tag!r}, this "
                         f"line {line.tag!r}")  # fmt: skip
            continue
        if line.topic not in topics:
            if line.topic not in unknown:
                unknown.add(line.topic)
                problems.add(file, line.line, "topic", f"topic {line.topic!r} is not one of the track's topics")
            continue
        ranked = run.per_topic.setdefault(line.topic, {})
        if line.docno in ranked:
            first = ranked[line.docno][1]
            reason = f"document {line.docno!r} is already ranked for topic {line.topic!r} on line {first}"
            problems.add(file, line.line, "docno", reason)
            continue
        if len(ranked) == depth:
            problems.add(file, line.line, "rank",
                         f"topic {line.topic!r} ranks more than {depth:,} documents, the track's depth")  # fmt: skip
        ranked[line.docno] = (line.score, line.line)
        run.lines += 1
    if run.tag is None:
        problems.add(file, 0, None, "the file has no run lines")
        return run
    missing = sorted(set(topics) - set(run.per_topic))
    if missing:
        shown = ", ".join(missing[:20]) + (f" and {len(missing) - 20:,} more" if len(missing) > 20 else "")
        problems.add(file, 0, None, f"the run ranks nothing for {len(missing):,} of the track's {len(topics):,} "
                     f"topics: {shown}")  # fmt: skip
    return run


def problem_reported(problem: Problem) -> dict:
    """A problem as a submitter reads it: {line (None for the whole file), field, reason}."""
    return {
        "line": problem.line or None,
        "field": REPORTED_FIELDS.get(problem.field, problem.field),
        "reason": problem.reason,
    }


def utc_text(moment: datetime) -> str:
    """A moment as every message and page of a track gives it: `YYYY-MM-DD HH:MM UTC`."""
    return moment.astimezone(UTC).strftime("%Y-%m-%d %H:%M UTC")


def window_refusal(*, now: datetime, opens: datetime | None, closes: datetime | None) -> str | None:
    """Why an upload or a withdrawal at `now` is refused by the window (opens inclusive, closes exclusive), or None
    while it is open."""
    if opens is not None and now < opens:
        return f"submissions open at {utc_text(opens)}"
    if closes is not None and now >= closes:
        return f"submissions closed at {utc_text(closes)}"
    return None
