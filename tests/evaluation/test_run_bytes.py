"""The numpy-only run reader and the hashed docno lookup give exactly what the string path gives, even when every
hash collides; files it does not handle are left to the careful reader."""

from __future__ import annotations

import numpy as np
import pytest
import pytrec_eval

from evaluation.measures import Collection, evaluate, read_qrels, read_run
from evaluation.measures import vocabulary as vocabulary_module
from evaluation.measures.run_bytes import fnv1a, read_run_bytes
from evaluation.measures.trec_files import MAX_LINE_CHARS


def _write_collection(tmp_path, runs=3, topics=6, seed=3):
    """Qrels and run files with score ties, docnos of several lengths and cases, unjudged documents, and runs that
    retrieve for different topics."""
    rng = np.random.default_rng(seed)
    names = [f"D{i}" if i % 3 else f"doc-{i:05d}X" for i in range(60)] + ["d7", "dD", "a"]
    qrels_lines = [
        f"{t} 0 {d} {int(rng.integers(0, 3))}"
        for t in range(1, topics + 1)
        for d in rng.choice(names, 25, replace=False)
    ]
    (tmp_path / "qrels").write_text("\n".join(qrels_lines) + "\n")
    paths = []
    for r in range(runs):
        lines = []
        for t in range(1, topics + 1 - r % 2):
            for rank, d in enumerate(rng.choice(names, 30, replace=False)):
                lines.append(f"{t} Q0 {d} {rank} {round(float(rng.random()) * 5, 1)} run{r}")
        path = tmp_path / f"run{r}"
        path.write_text("\n".join(lines) + "\n")
        paths.append(path)
    return tmp_path / "qrels", paths


MEASURES = ["AP", "P@5", "nDCG@10", "Bpref", "RR"]
TREC = {"AP": "map", "P@5": "P_5", "nDCG@10": "ndcg_cut_10", "Bpref": "bpref", "RR": "recip_rank"}


def _evaluate_files(qrels_path, paths):
    collection = Collection()
    qrels = collection.qrels_from_file(qrels_path)
    runs = [collection.run_from_file(path) for path in paths]
    return collection, evaluate(qrels, runs, MEASURES)


def test_files_read_as_bytes_score_exactly_as_trec_eval(tmp_path):
    qrels_path, paths = _write_collection(tmp_path)
    assert all(read_run_bytes(str(p), max_line_chars=MAX_LINE_CHARS) is not None for p in paths)
    collection, result = _evaluate_files(qrels_path, paths)
    evaluator = pytrec_eval.RelevanceEvaluator(read_qrels(qrels_path), set(TREC.values()))
    for path in paths:
        tag, scores = read_run(path)
        expected = evaluator.evaluate(scores)
        for topic, values in expected.items():
            for ours, theirs in TREC.items():
                assert result.value(tag, collection.topics.get(topic), ours) == values[theirs], (tag, topic, ours)


def test_bytes_and_strings_give_the_same_rankings_in_one_collection(tmp_path):
    _, paths = _write_collection(tmp_path)
    collection = Collection()
    from_strings = [collection.run(*read_run(p)) for p in paths[:1]]  # the dicts see some pairs first
    from_bytes = [collection.run_from_file(p) for p in paths]
    again = [collection.run(*read_run(p)) for p in paths]
    for first, second in zip(from_bytes, again, strict=True):
        assert np.array_equal(first.topics, second.topics) and np.array_equal(first.docs, second.docs)
    assert np.array_equal(from_strings[0].docs, from_bytes[0].docs)


def test_every_hash_colliding_still_gives_the_right_ids(tmp_path, monkeypatch):
    qrels_path, paths = _write_collection(tmp_path)
    _, honest = _evaluate_files(qrels_path, paths)
    monkeypatch.setattr(vocabulary_module, "fnv1a", lambda strings: np.zeros(len(strings), dtype=np.uint64))
    _, colliding = _evaluate_files(qrels_path, paths)
    for tag, result in honest.runs.items():
        assert np.array_equal(result.values, colliding.runs[tag].values), tag


@pytest.mark.parametrize(
    "text",
    [
        "1 Q0 é 1 1 t\n",  # not ASCII
        "1 Q0 a 1 1 t\n\n1 Q0 b 2 1 t\n",  # a blank line
        "1 Q0 a 1 1 t\n1 Q0 b 2 1 u\n",  # two tags
        "1 Q0 a 1 nan t\n",  # not finite
        "1 Q0 a 1 high t\n",  # not a number
        "1 Q0 a 1 1.0\n1 Q0 b 2 1.0 t t\n",  # misaligned columns that add up
        "1 Q0 " + "x" * MAX_LINE_CHARS + " 1 1 t\n",  # longer than trec_eval reads
        "",
    ],
)
def test_unusual_files_are_left_to_the_careful_reader(tmp_path, text):
    path = tmp_path / "run"
    path.write_text(text, encoding="utf-8")
    assert read_run_bytes(str(path), max_line_chars=MAX_LINE_CHARS) is None


def test_tabs_crlf_and_a_missing_final_newline_are_read(tmp_path):
    path = tmp_path / "run"
    path.write_bytes(b"1\tQ0\tb 1 2.0 t\r\n1 Q0 aa 2 -1e-3 t\r\n2 Q0 c 1 +3 t")
    found = read_run_bytes(str(path), max_line_chars=MAX_LINE_CHARS)
    assert found.tag == "t" and found.block_topics == ["1", "2"]
    assert found.docnos.tolist() == [b"b", b"aa", b"c"] and found.scores.tolist() == [2.0, -0.001, 3.0]


def test_the_hash_ignores_padding():
    short = np.array([b"abc", b"x"], dtype="S3")
    wide = np.array([b"abc", b"x"], dtype="S12")
    assert np.array_equal(fnv1a(short), fnv1a(wide))
    assert fnv1a(np.array([b"ab", b"ba"])).tolist()[0] != fnv1a(np.array([b"ab", b"ba"])).tolist()[1]


def test_colliding_hashes_are_told_apart_by_their_bytes(monkeypatch):
    monkeypatch.setattr(vocabulary_module, "fnv1a", lambda strings: np.zeros(len(strings), dtype=np.uint64))
    docs = vocabulary_module.DocumentVocabulary()
    a, bb, c = docs.ids(1, ["a", "bb", "c"]).tolist()
    assert docs.ids_of_bytes(np.array([1, 1, 1]), np.array([b"c", b"a", b"bb"])).tolist() == [c, a, bb]
    assert docs.ids_of_bytes(np.array([1, 1, 2]), np.array([b"bb", b"a", b"c"])).tolist() == [bb, a, docs.get(2, "c")]
    assert docs.names[docs.get(2, "c")] == "c"


def test_the_order_of_lines_in_a_file_does_not_change_the_run(tmp_path):
    """Rank order (the usual file, which takes the block-only sort), shuffled lines, topics split into several
    blocks, topics in descending order: one run, in trec_eval's order, ties by docno included."""
    rng = np.random.default_rng(5)
    lines = [
        (topic, f"d{doc}", float(score))
        for topic in ("3", "1", "20")
        for doc, score in zip(range(40), rng.integers(0, 8, 40), strict=True)
    ]
    by_docno_descending = sorted(lines, key=lambda line: line[1].encode(), reverse=True)
    in_rank_order = sorted(by_docno_descending, key=lambda line: (line[0], -line[2]))  # stable: ties keep docnos
    shuffled = [lines[i] for i in rng.permutation(len(lines))]
    split = in_rank_order[::2] + in_rank_order[1::2]
    descending_topics = sorted(in_rank_order, key=lambda line: line[0], reverse=True)
    runs = []
    collection = Collection()
    for name, ordering in (
        ("rank", in_rank_order),
        ("shuffled", shuffled),
        ("split", split),
        ("desc", descending_topics),
    ):
        path = tmp_path / name
        path.write_text("".join(f"{t} Q0 {d} 0 {s} tag\n" for t, d, s in ordering))
        runs.append(collection.run_from_file(path))
    for run in runs[1:]:
        assert np.array_equal(run.topics, runs[0].topics) and np.array_equal(run.docs, runs[0].docs)
    first_topic = runs[0].ranking(collection.topics.get("1"))
    expected = [d for t, d, _ in in_rank_order if t == "1"]
    assert [collection.docs.names[i] for i in first_topic.tolist()] == expected
