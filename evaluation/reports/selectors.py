"""A submitted run's report, read from the stored values (the one reader, `evaluation.selectors.topic_values`) and
compared with the other current submissions only (`judging.tracks.selectors.submitted_run_ids`)."""

from __future__ import annotations

from evaluation import selectors as values
from evaluation.reports import core
from judging.models import Topic
from judging.tracks import selectors as tracks
from judging.tracks.models import Submission


def run_report(*, submission: Submission) -> dict:
    """{run, measures, means {measure: value}, topics {topic: {measure: {value, best, median, worst}}}} of a current
    submission: its stored per-topic values and means (over the qrels' topics, as `trec_eval -c`), each topic's
    best, median and worst over the current submitted runs. Names no other run."""
    collection, run_id = submission.collection, submission.run_id
    measures = list(collection.measures)
    submitted = tracks.submitted_run_ids(collection_id=collection.pk)
    stored = values.topic_values(collection_id=collection.pk, measures=measures, run_ids=submitted | {run_id})
    numbers = dict(Topic.objects.filter(collection=collection).values_list("id", "number"))

    def by_number(per_topic: dict) -> dict:
        return {numbers[topic_id]: value for topic_id, value in per_topic.items()}

    run_values = {measure: by_number(stored[measure].get(run_id, {})) for measure in measures}
    others = {
        measure: [by_number(stored[measure][r]) for r in submitted if r in stored[measure]] for measure in measures
    }
    aggregates = values.run_aggregates(collection_id=collection.pk, measures=measures).get(run_id, {})
    return {
        "run": submission.tag,
        "measures": measures,
        "means": {measure: aggregates[measure][0] for measure in measures if measure in aggregates},
        "topics": core.topic_rows(run_values, others),
    }


def track_results(*, user, collection) -> list[dict] | None:
    """The leaderboard of the current submitted runs as this user may read it, each row {run, team, values (the
    collection's measures' means), submission, report (whether the user reads its report)}, best first by the first
    measure; None when the user reads no results of this track (`judging.tracks.selectors.results_scope`)."""
    if tracks.results_scope(user=user, collection=collection) is None:
        return None
    submissions = {s.run_id: s for s in tracks.current_submissions(collection=collection) if s.run_id}
    rows = values.leaderboard(collection=collection, measures=list(collection.measures), sort=collection.measures[0],
                              descending=True)  # fmt: skip
    return [
        {
            "run": row["run"].tag,
            "team": submissions[row["run"].id].team.name,
            "values": row["values"],
            "submission": submissions[row["run"].id],
            "report": tracks.report_refusal(user=user, submission=submissions[row["run"].id]) is None,
        }
        for row in rows
        if row["run"].id in submissions
    ]
