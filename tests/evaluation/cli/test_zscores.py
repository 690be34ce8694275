"""trec_eval's -Z: per-topic values as z-scores against a reference file, worked by hand."""

import pytest

from evaluation.cli.trec_eval import main

# topic 1 ranks a (relevant), b (not): AP 0.5, RR 1, P_5 0.2; topic 2 ranks d (relevant), x: AP 1, RR 1, P_5 0.2
QRELS = "1 0 a 1\n1 0 b 0\n1 0 c 1\n2 0 d 1\n"
RUN = "1 Q0 a 1 2 t\n1 Q0 b 2 1 t\n2 Q0 d 1 2 t\n2 Q0 x 2 1 t\n"
REFERENCE = """1 map 0.3 0.1
2 map 0.5 0.5
1   num_ret\t1 0.5
2 num_ret 2 0
1 P_5 0.2 0
2 P_5 0.3 0
1 gm_map -0.6931471805599453 1
2 gm_map -1 0.5
1 recip_rank 0.5 0.25
"""


@pytest.fixture
def files(tmp_path):
    (tmp_path / "qrels").write_text(QRELS)
    (tmp_path / "run").write_text(RUN)
    (tmp_path / "z").write_text(REFERENCE)
    return tmp_path


def _run(folder, *extra):
    measures = ["-m", "runid", "-m", "num_q", "-m", "num_ret", "-m", "map", "-m", "gm_map", "-m", "recip_rank"]
    return main([str(folder / "qrels"), str(folder / "run"), "-Z", str(folder / "z"), *measures, "-m", "P.5", *extra])


def test_values_become_z_scores_named_with_a_z_and_summaries_average_them(files, capsys):
    assert _run(files, "-q") == 0
    rows = [tuple(part.strip() for part in line.split("\t")) for line in capsys.readouterr().out.splitlines()]
    assert rows == [
        ("Znum_ret", "1", "2.0000"),  # counts too are printed as %6.4f once they are z-scores
        ("Zmap", "1", "2.0000"),
        ("Zrecip_rank", "1", "2.0000"),
        ("ZP_5", "1", "0.0000"),  # stddev 0 and the value on the mean: 0
        ("Znum_ret", "2", "0.0000"),
        ("Zmap", "2", "1.0000"),
        ("Zrecip_rank", "2", "-1000000.0000"),  # the file has no line for it
        ("ZP_5", "2", "-1000000.0000"),  # stddev 0 and the value off the mean
        ("runid", "all", "t"),
        ("Znum_q", "all", "2.0000"),
        ("Znum_ret", "all", "2.0000"),  # a count's summary is the sum
        ("Zmap", "all", "1.5000"),
        ("Zgm_map", "all", "2.7183"),  # exp of the mean z of log AP: z = 0 and 2, so e
        ("Zrecip_rank", "all", "-499999.0000"),
        ("ZP_5", "all", "-500000.0000"),
    ]


def test_the_z_prefix_is_glued_to_trec_evals_padded_name(files, capsys):
    assert _run(files, "-n", "-q") == 0
    assert capsys.readouterr().out.splitlines()[1] == f"Z{'map':<22}\t1\t2.0000"


def test_a_topic_the_file_does_not_name_scores_missing_for_every_measure(files, capsys):
    (files / "z").write_text("1 map 0.3 0.1\n")
    assert main([str(files / "qrels"), str(files / "run"), "-Z", str(files / "z"), "-q", "-m", "map"]) == 0
    assert capsys.readouterr().out.splitlines() == [
        f"Z{'map':<22}\t1\t2.0000",
        f"Z{'map':<22}\t2\t-1000000.0000",
        f"Z{'map':<22}\tall\t-499999.0000",
    ]


@pytest.mark.parametrize(
    "text, where",
    [
        ("1 map 0.3\n", "z:1: expected 4 fields (qid measure mean stddev), found 3"),
        ("1 map 0.3 0.1\n\n", "z:2: expected 4 fields"),
        ("1 map 0.3 0.1 extra\n", "z:1: expected 4 fields"),
        ("1 map 0.3 0.1\n1 map abc 0.1\n", "z:2: field 'mean': 'abc' is not a number"),
        ("1 map 0.3 nan\n", "z:1: field 'stddev': 'nan' is not a finite number"),
        ("1 map 0.3 0.1\n1 map 0.4 0.1\n", "z:2: field 'measure': a second line for topic '1' and 'map'"),
        ("", "z: no lines"),
    ],
)
def test_a_malformed_z_score_file_is_refused_naming_its_line_and_field(files, capsys, text, where):
    (files / "z").write_text(text)
    assert main([str(files / "qrels"), str(files / "run"), "-Z", str(files / "z"), "-m", "map"]) == 2
    error = capsys.readouterr().err
    assert where in error.replace(str(files) + "/", "")


def test_complete_mode_converts_topics_without_results_from_their_empty_ranking(files, capsys):
    (files / "qrels").write_text(QRELS + "3 0 e 1\n")
    (files / "z").write_text("1 map 0.3 0.1\n2 map 0.5 0.5\n3 map 0.1 0.05\n")
    assert main([str(files / "qrels"), str(files / "run"), "-Z", str(files / "z"), "-c", "-q", "-m", "map"]) == 0
    assert [line.split("\t")[2] for line in capsys.readouterr().out.splitlines()] == [
        "2.0000",
        "1.0000",
        "-2.0000",  # AP 0 on an empty ranking, two stddevs under the mean
        "0.3333",
    ]
