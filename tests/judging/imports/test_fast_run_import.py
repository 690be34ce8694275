"""The run import's fast path stores exactly what the careful reader stores, and hands every file it does not vouch
for (a problem on any line, several runs, a document ranked twice, something to create) to the careful reader,
which names the line."""

from __future__ import annotations

import pytest

from judging.imports.core import fast_runs
from judging.imports.core.problems import ImportFailed
from judging.imports.services import runs_import
from judging.models import Ranking, Run
from tests.factories import make_collection

pytestmark = pytest.mark.django_db


def _collection():
    return make_collection(topics=3, documents=12, runs=0)


def _tied_lines(tag="fast"):
    # scores tie in every topic; docnos of two lengths and cases, in no order
    docnos = ["d1", "d10", "d2", "d11", "d3", "d9", "d4"]
    return [f"{t} Q0 {d} {rank} {float(len(d) % 2)} {tag}" for t in (1, 2, 3) for rank, d in enumerate(docnos)]


def _stored(collection, tag):
    run = Run.objects.get(collection=collection, tag=tag)
    return {r.topic.number: (bytes(r.document_ids), bytes(r.scores), r.depth) for r in run.rankings.all()}


def test_the_fast_path_stores_the_rankings_the_careful_reader_stores(tmp_path, monkeypatch):
    path = tmp_path / "run"
    path.write_text("\n".join(_tied_lines()) + "\n")
    fast, careful = _collection(), _collection()
    taken = []
    original = fast_runs.fast_run
    monkeypatch.setattr(
        "judging.imports.services.fast_run", lambda *a, **k: taken.append(original(*a, **k)) or taken[-1]
    )
    runs_import(collection=fast, paths=[path])
    assert taken[-1] is not None  # the plain file took the fast path
    monkeypatch.setattr("judging.imports.services.fast_run", lambda *a, **k: None)
    runs_import(collection=careful, paths=[path])
    docnos = {c: dict(c.documents.values_list("id", "docno")) for c in (fast, careful)}

    def readable(collection):
        import numpy as np

        return {
            topic: ([docnos[collection][d] for d in np.frombuffer(ids, "<i8")], scores, depth)
            for topic, (ids, scores, depth) in _stored(collection, "fast").items()
        }

    assert readable(fast) == readable(careful)


@pytest.mark.parametrize(
    ("bad_line", "field"),
    [
        ("2 Q0 d5 x 1.0 fast", "rank"),
        ("2 Q0 d5 -1 1.0 fast", "rank"),
        ("2 Q0 d1 0 1.0 fast", "docno"),  # d1 already ranked for topic 2
        ("2 Q0 nowhere 0 1.0 fast", "docno"),  # not in the collection
    ],
)
def test_a_file_the_fast_path_declines_is_refused_by_the_careful_reader_naming_its_line(tmp_path, bad_line, field):
    lines = _tied_lines()
    lines.insert(9, bad_line)
    path = tmp_path / "run"
    path.write_text("\n".join(lines) + "\n")
    collection = _collection()
    with pytest.raises(ImportFailed) as failed:
        runs_import(collection=collection, paths=[path])
    problems = [(p.line, p.field) for p in failed.value.problems]
    assert (10, field) in problems or (0, None) in problems  # the line, or the one-line summary of what is missing
    assert not Run.objects.filter(collection=collection).exists()


def test_a_file_of_several_runs_is_read_by_the_careful_reader(tmp_path):
    path = tmp_path / "runs"
    path.write_text("\n".join(_tied_lines("a") + _tied_lines("b")) + "\n")
    assert (
        fast_runs.fast_run(path, topic_id={"1": 1, "2": 2, "3": 3}.get, document_id=lambda d: 1, taken_tags={}) is None
    )
    collection = _collection()
    report = runs_import(collection=collection, paths=[path])
    assert report.created == 2
    assert Ranking.objects.filter(run__collection=collection).count() == 6


def test_what_is_missing_is_made_as_placeholders_by_the_fast_path_as_by_the_careful_reader(tmp_path, monkeypatch):
    path = tmp_path / "run"
    lines = [*_tied_lines(), "4 Q0 new-doc 0 2.5 fast", "4 Q0 d1 1 2.5 fast"]  # a topic and a document to make
    path.write_text("\n".join(lines) + "\n")
    fast, careful = _collection(), _collection()
    runs_import(collection=fast, paths=[path], create_missing=True)
    monkeypatch.setattr("judging.imports.services.fast_run", lambda *a, **k: None)
    runs_import(collection=careful, paths=[path], create_missing=True)
    for collection in (fast, careful):
        assert collection.topics.get(number="4").extra == {"placeholder": True}
        assert collection.documents.get(docno="new-doc").extra == {"placeholder": True}

    def readable(collection):
        import numpy as np

        docnos = dict(collection.documents.values_list("id", "docno"))
        return {
            t: [docnos[d] for d in np.frombuffer(ids, "<i8")] for t, (ids, _, _) in _stored(collection, "fast").items()
        }

    assert readable(fast) == readable(careful)
    assert readable(fast)["4"] == ["new-doc", "d1"]  # equal scores: docno descending


def test_a_ranking_is_stored_and_read_in_the_one_format():
    import numpy as np

    from judging.core import rankings

    ids, scores = np.array([7, -1, 2**40]), np.array([1.5, 0.25, -3.0])
    assert rankings.ids_to_bytes(ids) == ids.astype("<i8").tobytes() and len(rankings.ids_to_bytes(ids)) == 24
    assert rankings.ids_from_bytes(rankings.ids_to_bytes(ids)).tolist() == ids.tolist()
    assert rankings.scores_from_bytes(rankings.scores_to_bytes(scores)).tolist() == scores.tolist()
