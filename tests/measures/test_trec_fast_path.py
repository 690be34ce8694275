"""The fast path (pyarrow's CSV reader behind `run_table` / `qrels_table`) gives exactly what the careful reader
gives, or declines and leaves the file to it: the contract that lets the fast path exist."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
import pytrec_eval
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from measures import TrecReader, evaluate, qrels_lines, read_qrels, read_run, run_lines
from measures.lines import MAX_LINE_BYTES
from measures.trec_files import qrels_table, run_table


def _write_collection(tmp_path, runs=3, topics=6, seed=3):
    """Qrels and run files with score ties, docnos of several lengths and cases, unjudged documents, and runs that
    retrieve for different topics."""
    rng = np.random.default_rng(seed)
    names = [f"D{i}" if i % 3 else f"doc-{i:05d}X" for i in range(60)] + ["d7", "dD", "a"]
    qrels_lines_ = [
        f"{t} 0 {d} {int(rng.integers(0, 3))}"
        for t in range(1, topics + 1)
        for d in rng.choice(names, 25, replace=False)
    ]
    (tmp_path / "qrels").write_text("\n".join(qrels_lines_) + "\n")
    paths = []
    for r in range(runs):
        lines = [
            f"{t} Q0 {d} {rank} {round(float(rng.random()) * 5, 1)} run{r}"
            for t in range(1, topics + 1 - r % 2)
            for rank, d in enumerate(rng.choice(names, 30, replace=False))
        ]
        path = tmp_path / f"run{r}"
        path.write_text("\n".join(lines) + "\n")
        paths.append(path)
    return tmp_path / "qrels", paths


MEASURES = {"AP": "map", "P@5": "P_5", "nDCG@10": "ndcg_cut_10", "Bpref": "bpref", "RR": "recip_rank"}


def test_plain_files_take_the_fast_path_and_score_exactly_as_trec_eval(tmp_path):
    qrels_path, paths = _write_collection(tmp_path)
    assert qrels_table(qrels_path) is not None and all(run_table(p) is not None for p in paths)
    collection = TrecReader()
    qrels = collection.qrels_from_file(qrels_path)
    result = evaluate(qrels, collection.runs_from_files(paths), list(MEASURES))
    evaluator = pytrec_eval.RelevanceEvaluator(read_qrels(qrels_path), set(MEASURES.values()))
    for path in paths:
        tag, scores = read_run(path)
        for topic, values in evaluator.evaluate(scores).items():
            for ours, theirs in MEASURES.items():
                assert result.value(tag, collection.topics.get(topic), ours) == values[theirs], (tag, topic, ours)


def test_runs_of_long_topic_blocks_score_exactly_as_trec_eval(tmp_path):
    """Real run files: hundreds of lines a topic in one block (the vocabulary hashes them by block, two topics at
    once), one-decimal scores that tie, a topic's block split in two in one file, docnos shared across topics."""
    rng = np.random.default_rng(11)
    names = [f"doc{i:05d}" for i in range(1500)]
    (tmp_path / "qrels").write_text(
        "".join(
            f"{t} 0 {d} {int(rng.integers(0, 3))}\n" for t in range(1, 5) for d in rng.choice(names, 300, replace=False)
        )
    )
    paths = []
    for r in range(3):
        blocks = [(t, rng.choice(names, 600, replace=False)) for t in range(1, 5)]
        if r == 1:  # topic 2 in two blocks, the second after topic 4
            blocks = [*blocks[:1], (2, blocks[1][1][:300]), *blocks[2:], (2, blocks[1][1][300:])]
        lines = [f"{t} Q0 {d} {i} {round(float(rng.random()) * 9, 1)} run{r}\n" for t, docs in blocks
                 for i, d in enumerate(docs)]  # fmt: skip
        path = tmp_path / f"run{r}"
        path.write_text("".join(lines))
        paths.append(path)
    collection = TrecReader()
    qrels = collection.qrels_from_file(tmp_path / "qrels")
    result = evaluate(qrels, collection.runs_from_files(paths), list(MEASURES))
    evaluator = pytrec_eval.RelevanceEvaluator(read_qrels(tmp_path / "qrels"), set(MEASURES.values()))
    for path in paths:
        tag, scores = read_run(path)
        for topic, values in evaluator.evaluate(scores).items():
            for ours, theirs in MEASURES.items():
                assert result.value(tag, collection.topics.get(topic), ours) == values[theirs], (tag, topic, ours)


def test_the_fast_path_reads_the_values_the_careful_reader_reads(tmp_path):
    qrels_path, paths = _write_collection(tmp_path)
    table = run_table(paths[0])
    careful = list(run_lines(paths[0]))
    assert table.tag == careful[0].tag
    assert table.topics.to_pylist() == [line.topic for line in careful]
    assert table.docnos.to_pylist() == [line.docno for line in careful]
    assert table.scores.tolist() == [line.score for line in careful]
    qrels = qrels_table(qrels_path)
    careful_qrels = list(qrels_lines(qrels_path))
    assert qrels.docnos.to_pylist() == [line.docno for line in careful_qrels]
    assert qrels.grades.tolist() == [line.grade for line in careful_qrels]


def test_runs_read_together_or_one_by_one_rank_the_same_documents(tmp_path):
    _, paths = _write_collection(tmp_path)
    together, apart = TrecReader(), TrecReader()
    first = together.runs_from_files(paths)
    second = [apart.run(*read_run(p)) for p in paths]  # the careful reader, one run at a time
    for a, b in zip(first, second, strict=True):
        assert [together.docs.names[d] for d in a.docs] == [apart.docs.names[d] for d in b.docs]
        assert [together.topic_name(t) for t in a.topics] == [apart.topic_name(t) for t in b.topics]


_SCORE_TOKENS = st.from_regex(
    r"[-+]?[0-9_]{0,6}\.?[0-9]{0,20}([eE][-+]?[0-9]{1,3})?", fullmatch=True
) | st.sampled_from(
    ["inf", "-inf", "nan", "NaN", "NA", "null", "1e999", "0x10", "1,5", "½", "1.5f", "", "+.5", "5.", "-0", "1_0"]
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(_SCORE_TOKENS, min_size=1, max_size=5))
def test_any_score_token_is_read_as_python_reads_it_or_left_to_the_careful_reader(tmp_path, tokens):
    path = tmp_path / "run"
    path.write_text("".join(f"1 Q0 d{i} {i} {token} t\n" for i, token in enumerate(tokens)))
    table = run_table(path)
    if table is None:
        return
    assert [float(v).hex() for v in table.scores] == [float(t).hex() for t in tokens]


@pytest.mark.parametrize(
    "text",
    [
        "1 Q0 é 1 1 t\n",  # not ASCII
        "1 Q0 a 1 1 t\n\n1 Q0 b 2 1 t\n",  # a blank line
        "1 Q0 a 1 nan t\n",  # not finite
        "1 Q0 a 1 high t\n",  # not a number
        "1 Q0 a 1 NA t\n",  # what pyarrow would otherwise read as null
        "1 Q0 a 1 1.0\n1 Q0 b 2 1.0 t t\n",  # misaligned columns that add up
        "1  a 1 1 t\n",  # an empty column between two separators
        "1 Q0 a 1 1 t \n",  # a trailing space
        " 1 Q0 a 1 1 t\n",  # a leading space
        "1 Q0 a 1 1 t\n1\tQ0 b 2 1 t\n",  # a tab among spaces
        "1 Q0 a\r1 1 t\n",  # a lone carriage return
        "1 Q0 a\x0b1 1 t\n",  # another control character
        "1 Q0 a\x00b 1 1 t\n",  # a NUL inside a docno
        "1 Q0 " + "x" * MAX_LINE_BYTES + " 1 1 t\n",  # longer than a line may be
        "",
    ],
)
def test_unusual_run_files_are_left_to_the_careful_reader(tmp_path, text):
    path = tmp_path / "run"
    path.write_text(text, encoding="utf-8")
    assert run_table(path) is None


def test_tab_separated_and_crlf_files_without_a_final_newline_are_read(tmp_path):
    path = tmp_path / "run"
    path.write_bytes(b"1\tQ0\tb\t1\t2.0\tt\r\n1\tQ0\taa\t2\t-1e-3\tt\r\n2\tQ0\tc\t1\t+3\tt")
    table = run_table(path)
    assert table.tag == "t" and table.topics.to_pylist() == ["1", "1", "2"]
    assert table.docnos.to_pylist() == ["b", "aa", "c"] and table.scores.tolist() == [2.0, -0.001, 3.0]


@pytest.mark.parametrize("ending", ["\n", "", "\n# a closing comment\n"])
def test_a_run_whose_lines_name_several_tags_is_named_by_its_last_as_trec_eval_names_it(tmp_path, ending):
    """trec_eval's reader keeps the run id of every line it parses over the last one's (get_trec_results.c)."""
    path = tmp_path / "run"
    path.write_text("1 Q0 a 1 1 first\n1 Q0 b 2 0.5 second" + ending)
    assert run_table(path).tag == read_run(path)[0] == "second"


def test_a_repeated_qrels_pair_is_named_by_the_careful_reader(tmp_path):
    path = tmp_path / "qrels"
    path.write_text("1 0 a 1\n1 0 b 0\n1 0 a 2\n")
    assert qrels_table(path) is not None  # plain, so read fast; the repeat is found from the ids
    with pytest.raises(ValueError, match="judged twice") as error:
        TrecReader().qrels_from_file(path)
    assert error.value.line == 3


def test_the_command_line_never_imports_pandas(tmp_path):
    """pyarrow imports pandas, when installed, as soon as `pyarrow.array()` or `to_numpy()` is called: a third of a
    second on every command, so the readers wrap buffers instead."""
    qrels_path, paths = _write_collection(tmp_path, runs=1)
    script = (
        "import sys; from evaluation.cli.trec_eval import main; "
        f"main([{str(qrels_path)!r}, {str(paths[0])!r}, '-q']); "
        "sys.stderr.write(str('pandas' in sys.modules))"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    assert done.stderr.strip().endswith("False")


@pytest.mark.parametrize("duplicates", ["first", "last"])
def test_a_run_repeating_a_docno_keeps_one_copy_in_the_fast_path_as_the_careful_reader_does(
    tmp_path, monkeypatch, duplicates
):
    lines = ["1 Q0 a 1 3.0 r", "1 Q0 b 2 2.0 r", "1 Q0 a 3 1.0 r", "2 Q0 c 1 5.0 r", "1 Q0 d 4 2.5 r",
             "2 Q0 c 2 9.0 r", "2 Q0 e 3 4.0 r"]  # fmt: skip
    (tmp_path / "run").write_text("\n".join(lines) + "\n")
    careful = TrecReader()
    expected = careful.run(*read_run(tmp_path / "run", duplicates=duplicates))
    import measures.loading as loading

    def unused(*args, **kwargs):
        raise AssertionError("a plain file with a repeated docno went to the careful reader")

    monkeypatch.setattr(loading, "read_run", unused)
    fast = TrecReader()
    got = fast.run_from_file(tmp_path / "run", duplicates=duplicates)
    for topic in ("1", "2"):
        ranked = [fast.docs.names[d] for d in got.ranking(fast.topics.id(topic))]
        wanted = [careful.docs.names[d] for d in expected.ranking(careful.topics.id(topic))]
        assert ranked == wanted
    topic_1 = [fast.docs.names[d] for d in got.ranking(fast.topics.id("1"))]
    assert topic_1 == (["a", "d", "b"] if duplicates == "first" else ["d", "b", "a"])  # a at 3.0, or at 1.0


def test_comment_lines_are_cut_out_in_the_fast_path_and_read_as_the_careful_reader_reads_them(tmp_path):
    text = "# a header  with spacing\n1 Q0 a 1 3.0 r\n#mid\n2 Q0 b 1 2.0 r\n1 Q0 c 2 2.5 r\n# the end, no newline"
    (tmp_path / "run").write_text(text)
    table = run_table(tmp_path / "run")
    assert table is not None and table.docnos.to_pylist() == ["a", "b", "c"] and table.tag == "r"
    careful = [(line.topic, line.docno, line.score) for line in run_lines(tmp_path / "run")]
    assert list(zip(table.topics.to_pylist(), table.docnos.to_pylist(), table.scores.tolist(), strict=True)) == careful
    (tmp_path / "qrels").write_text("#judged by ann\n1 0 a 1\n# two\n1 0 c 0\n")
    assert qrels_table(tmp_path / "qrels").docnos.to_pylist() == ["a", "c"]
    (tmp_path / "only").write_text("# nothing but comments\n")
    assert run_table(tmp_path / "only") is None  # the careful reader says the file has no run lines


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    st.lists(st.integers(min_value=4, max_value=9), min_size=1, max_size=8),
    st.sampled_from([" ", "\t"]),
    st.booleans(),
)
def test_trailing_columns_are_cut_in_the_fast_path_as_the_careful_reader_ignores_them(
    tmp_path, widths, separator, final_newline
):
    """trec_eval reads a run line's first six columns and ignores the rest; a line with fewer is the careful
    reader's to name."""
    lines = [
        separator.join(
            [str(1 + i % 2), "Q0", f"d{i}", str(i), f"{i / 3:.4f}", "tag", *(f"x{k}" for k in range(w - 6))][:w]
        )
        for i, w in enumerate(widths)
    ]
    path = tmp_path / "run"
    path.write_text("\n".join(lines) + ("\n" if final_newline else ""))
    table = run_table(path)
    if min(widths) < 6:
        assert table is None
        return
    careful = [(line.topic, line.docno, line.score, line.tag) for line in run_lines(path)]
    assert table is not None
    assert list(zip(table.topics.to_pylist(), table.docnos.to_pylist(), table.scores.tolist(), strict=True)) == [
        c[:3] for c in careful
    ]
    assert table.tag == careful[-1][3]


def test_a_long_run_file_with_a_trailing_column_on_every_line_takes_the_fast_path(tmp_path):
    path = tmp_path / "run"
    path.write_text("".join(f"{t} Q0 d{i} {i} {1 - i / 1000} tag extra {i}\n" for t in range(3) for i in range(900)))
    table = run_table(path)
    assert table is not None and len(table.docnos) == 2700 and table.tag == "tag"
    assert table.docnos.to_pylist()[-1] == "d899" and table.scores[-1] == 1 - 899 / 1000
