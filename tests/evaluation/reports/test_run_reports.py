"""A submitted run's report: its values and means equal `python -m evaluation -q -c` on the same qrels and run file,
each topic's best, median and worst are a direct computation over the current submitted runs only (not an imported
run, not a withdrawn one), and its `trec_eval -q` download."""

from __future__ import annotations

import json
import statistics

import pytest

from evaluation.cli.trec_eval import main
from judging import services
from judging.models import Document
from judging.tracks import services as tracks
from tests.track_campaign import api_as, run_file, submitted, team, track

pytestmark = pytest.mark.django_db(transaction=True)  # judgments recompute on commit, as they do live


def _grade(topic: str, docno: str) -> int:
    return (int(topic) * 5 + int(docno[1:]) * 7) % 4  # a 0..3 scale, some of each grade in each topic


@pytest.fixture
def judged_track(tmp_path):
    collection = track(runs=1, runs_per_team=2, depth=8, released=True)  # run0: the organizer's, never compared
    texts = {}
    submissions = {}
    for name, shifts in [("alpha", (0, 4)), ("beta", (2,)), ("gamma", (5,))]:
        _, member = team(collection, name)
        for index, shift in enumerate(shifts):
            tag = f"{name}{index}"
            texts[tag] = run_file(tag, depth=8, shift=shift)
            submissions[tag] = submitted(collection, member, texts[tag], priority=index + 1)
    _, delta = team(collection, "delta")
    withdrawn = submitted(collection, delta, run_file("delta0", depth=8, shift=7))
    tracks.submission_withdraw(submission=withdrawn, user=delta)
    tracks.submissions_pool_start(collection=collection, depths={1: 8, 2: 4})
    assessor = services.user_create(username="judge", password="pw-for-tests-123", role="assessor")
    qrels = []
    for topic in collection.topics.all():
        services.assignment_create(assessor=assessor, topic=topic)
        for document in Document.objects.filter(pool_items__topic=topic).order_by("id"):
            grade = _grade(topic.number, document.docno)
            services.judgment_record(assessor=assessor, topic=topic, document=document, grade=grade)
            qrels.append(f"{topic.number} 0 {document.docno} {grade}\n")
    (tmp_path / "qrels").write_text("".join(qrels))
    for tag, text in texts.items():
        (tmp_path / tag).write_text(text)
    return collection, submissions, tmp_path


def _reference(path, run_path, measures, capsys) -> dict:
    flags = [flag for measure in measures for flag in ("-m", measure)]
    assert main(["-q", "-c", "--json", "--max-grade", "3", *flags, str(path), str(run_path)]) == 0
    return json.loads(capsys.readouterr().out)


def test_a_report_equals_trec_eval_q_c_and_the_spread_is_over_submitted_runs_only(judged_track, capsys):
    collection, submissions, folder = judged_track
    admin = api_as(services.user_create(username="organizer", password="pw-for-tests-123", role="admin"))
    reports = {}
    for tag, submission in submissions.items():
        response = admin.get(f"/api/collections/{collection.id}/submissions/{submission.id}/report/")
        assert response.status_code == 200, response.content
        reports[tag] = response.json()
    measures = reports["alpha0"]["measures"]
    assert measures == list(collection.measures)
    reference = {tag: _reference(folder / "qrels", folder / tag, measures, capsys) for tag in submissions}
    for tag, report in reports.items():
        expected = reference[tag]
        assert report["run"] == tag
        for measure in measures:
            assert report["means"][measure] == pytest.approx(expected["aggregates"][tag][measure], abs=1e-12)
        assert set(report["topics"]) == set(expected["results"][tag])
        for topic, cells in report["topics"].items():
            for measure in measures:
                assert cells[measure]["value"] == pytest.approx(expected["results"][tag][topic][measure], abs=1e-12)
                column = [reference[other]["results"][other][topic][measure] for other in submissions]
                defined = [value for value in column if value is not None]
                direct = (max(defined), statistics.median(defined), min(defined))
                got = (cells[measure]["best"], cells[measure]["median"], cells[measure]["worst"])
                assert got == pytest.approx(direct, abs=1e-12), (tag, topic, measure)
    # The report's download is the run's trec_eval -q file, naming no other run.
    response = admin.get(f"/api/collections/{collection.id}/submissions/{submissions['beta0'].id}/report/?format=trec")
    assert response.status_code == 200
    text = b"".join(response.streaming_content).decode()
    assert text.startswith("runid                 \tall\tbeta0\n")
    assert "\tall\t" in text.splitlines()[-1] and "alpha0" not in text
