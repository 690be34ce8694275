"""TREC file readers: every malformed line is reported with its file, line and field."""

import pytest

from measures import TrecFormatError, read_qrels, read_run


def write(tmp_path, name, text, mode="w"):
    path = tmp_path / name
    path.write_bytes(text) if isinstance(text, bytes) else path.write_text(text)
    return path


@pytest.mark.parametrize(
    ("text", "line", "field", "reason"),
    [
        ("1 Q0 a 1 1.0 t\n1 Q0 b 2 abc t\n", 2, "score", "expected a number"),
        ("1 Q0 a 1 1.0 t\n1 Q0 b 2 nan t\n", 2, "score", "finite"),
        ("1 Q0 a 1 inf t\n", 1, "score", "finite"),
        ("1 Q0 a 1 1.0\n", 1, None, "expected 6 columns"),
        ("1 Q0 a 1 1.0 t\n1 Q0 a 2 0.5 t\n", 2, "docno", "appears twice"),
    ],
)
def test_malformed_run_lines_name_file_line_and_field(tmp_path, text, line, field, reason):
    path = write(tmp_path, "run.txt", text)
    with pytest.raises(TrecFormatError) as error:
        read_run(path)
    assert (error.value.path, error.value.line, error.value.field) == (str(path), line, field)
    assert reason in str(error.value) and f"{path}:{line}" in str(error.value)


def test_duplicate_docnos_can_keep_the_first_or_the_last(tmp_path):
    path = write(tmp_path, "run.txt", "1 Q0 a 1 1.0 t\n1 Q0 a 2 0.5 t\n")
    assert read_run(path, duplicates="first")[1] == {"1": {"a": 1.0}}
    assert read_run(path, duplicates="last")[1] == {"1": {"a": 0.5}}


def test_scores_may_be_negative_integers_or_scientific(tmp_path):
    path = write(tmp_path, "run.txt", "1 Q0 a 1 -3 t\n1 Q0 b 2 1.5e-3 t\n1 Q0 c 3 2E+2 t\n")
    assert read_run(path)[1] == {"1": {"a": -3.0, "b": 0.0015, "c": 200.0}}


@pytest.mark.parametrize(
    ("text", "line", "field", "reason"),
    [
        ("1 0 a 1\n1 0 b x\n", 2, "grade", "expected an integer"),
        ("1 0 a\n", 1, None, "expected 4 columns"),
        ("1 0 a 1\n1 0 a 0\n", 2, "docno", "judged twice"),
        ("", 0, None, "the file is empty"),
        ("\n\n", 0, None, "no qrels lines"),
    ],
)
def test_malformed_qrels_lines_name_file_line_and_field(tmp_path, text, line, field, reason):
    path = write(tmp_path, "qrels.txt", text)
    with pytest.raises(TrecFormatError) as error:
        read_qrels(path)
    assert (error.value.line, error.value.field) == (line, field)
    assert reason in str(error.value)


def test_bad_encoding_is_reported_with_its_line(tmp_path):
    path = write(tmp_path, "qrels.txt", b"1 0 a 1\n1 0 \xff 1\n")
    with pytest.raises(TrecFormatError, match="not valid UTF-8") as error:
        read_qrels(path)
    assert error.value.line == 2


def test_negative_labels_are_read_as_given(tmp_path):
    path = write(tmp_path, "qrels.txt", "1 0 a -1\n1 0 b 2\n")
    assert read_qrels(path) == {"1": {"a": -1, "b": 2}}


def ranked_docnos(collection, run, topic):
    return [collection.docs.names[d] for d in run.ranking(collection.topics.get(topic))]


@pytest.mark.parametrize(
    "text",
    [
        "1 Q0 b 1 2.0 t\n1 Q0 a 2 2.0 t\n2 Q0 c 1 1 t\n1 Q0 d 9 3e0 t\n",  # a topic split in two blocks, ties
        "1\tQ0\tb 1 2.0 t\r\n1 Q0 a 2 2.0 t\r\n2 Q0 c 1 1 t\r\n1 Q0 d 9 3e0 t",  # tabs, CRLF, no final newline
        "1 Q0 b 1 2.0 t\n\n1 Q0 a 2 2.0 t\n2 Q0 c 1 1 t\n1 Q0 d 9 3e0 t\n",  # a blank line: the careful path
        "1 Q0 b 1 2.0 t\n1 Q0 a 2 2.0 other\n2 Q0 c 1 1 t\n1 Q0 d 9 3e0 t\n",  # mixed tags: the careful path
    ],
)
def test_the_fast_and_careful_run_readers_prepare_the_same_ranking(tmp_path, text):
    from measures import TrecReader

    collection = TrecReader()
    run = collection.run_from_file(write(tmp_path, "run.txt", text))
    assert run.tag == "t"
    assert ranked_docnos(collection, run, "1") == ["d", "b", "a"]
    assert ranked_docnos(collection, run, "2") == ["c"]


def test_misaligned_columns_that_add_up_are_still_reported_by_line(tmp_path):
    # Five columns on one line and seven on the next: the token count of the file is right, the lines are not.
    path = write(tmp_path, "run.txt", "1 Q0 a 1 1.0 t\n1 Q0 b 2 0.5\n1 Q0 c 3 0.2 t t\n")
    from measures import TrecReader

    with pytest.raises(TrecFormatError, match="expected 6 columns") as error:
        TrecReader().run_from_file(path)
    assert error.value.line == 2


def test_a_repeated_docno_found_after_the_fast_read_is_named_by_line_or_resolved(tmp_path):
    from measures import TrecReader

    path = write(tmp_path, "run.txt", "1 Q0 a 1 1.0 t\n1 Q0 b 2 0.7 t\n1 Q0 a 3 0.5 t\n")
    with pytest.raises(TrecFormatError, match="appears twice") as error:
        TrecReader().run_from_file(path)
    assert error.value.line == 3
    for keep, expected in (("first", ["a", "b"]), ("last", ["b", "a"])):
        collection = TrecReader()
        run = collection.run_from_file(path, duplicates=keep)
        assert ranked_docnos(collection, run, "1") == expected


def test_non_ascii_docnos_are_read_and_ordered_by_utf8_bytes(tmp_path):
    from measures import TrecReader

    collection = TrecReader()
    run = collection.run_from_file(write(tmp_path, "run.txt", "1 Q0 é 1 1 t\n1 Q0 z 2 1 t\n1 Q0 Z 3 1 t\n"))
    assert ranked_docnos(collection, run, "1") == ["é", "z", "Z"]


def test_comment_lines_are_skipped_and_columns_after_the_run_tag_ignored_as_in_trec_eval_10(tmp_path):
    from measures import TrecReader

    run = write(
        tmp_path, "run.txt", "# made by system X\n1 Q0 a 1 2.0 t extra words\n  # indented comment\n1 Q0 b 2 1.0 t\n"
    )
    assert read_run(run) == ("t", {"1": {"a": 2.0, "b": 1.0}})
    qrels = write(tmp_path, "qrels.txt", "#qid 0 docno grade\n1 0 a 1\n")
    assert read_qrels(qrels) == {"1": {"a": 1}}
    reader = TrecReader()
    prepared = reader.run_from_file(write(tmp_path, "plain-with-comment.txt", "1 Q0 a 1 2.0 t\n# a 1 2 3 4\n"))
    assert ranked_docnos(reader, prepared, "1") == ["a"]  # the fast path leaves the comment to the careful reader


def test_a_run_can_be_read_from_standard_input(tmp_path):
    import subprocess
    import sys

    qrels = write(tmp_path, "qrels.txt", "1 0 a 1\n1 0 b 0\n")
    done = subprocess.run(
        [sys.executable, "-m", "evaluation", str(qrels), "-", "-m", "P.1"],
        input=b"1 Q0 b 1 2.0 t\n1 Q0 a 2 1.0 t\n",
        capture_output=True,
        check=True,
    )
    assert done.stdout.decode().splitlines()[-1].split() == ["P_1", "all", "0.0000"]
