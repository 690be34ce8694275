"""`python -m evaluation.agreement`: JSON report per topic and overall, consensus qrels, clear errors."""

import json
import subprocess
import sys

import pytest

from evaluation.agreement.__main__ import main


@pytest.fixture
def judgments(tmp_path):
    path = tmp_path / "judgments.tsv"
    rows = [
        "topic\tdocno\tassessor\tgrade",
        "1\ta\tx\t2",
        "1\ta\ty\t2",
        "1\tb\tx\t0",
        "1\tb\ty\t1",
        "2\tc\tx\t3",
        "2\tc\ty\t3",
        "2\td\tx\t0",
        "2\td\ty\t0",
    ]
    path.write_text("\n".join(rows) + "\n")
    return path


def test_report_has_overall_and_per_topic_statistics_with_parameters(judgments, capsys):
    assert main([str(judgments), "--categories", "0,1,2,3", "--threshold", "2"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert set(report["topics"]) == {"1", "2"}
    assert report["topics"]["2"]["graded"]["percent_agreement"] == 1.0
    parameters = report["overall"]["parameters"]
    assert (parameters["categories"], parameters["threshold"]) == ([0, 1, 2, 3], 2)
    assert "Fleiss 1971" in parameters["fleiss"] and "both judged" in parameters["pairs"]
    assert report["overall"]["graded"]["items"] == 4


def test_consensus_writes_trec_qrels(judgments, tmp_path, capsys):
    out = tmp_path / "qrels"
    assert main([str(judgments), "--consensus", "majority", "--out", str(out)]) == 0
    assert out.read_text().splitlines() == ["1 0 a 2", "1 0 b 1", "2 0 c 3", "2 0 d 0"]


def test_bad_grade_exits_2_naming_line_and_field(tmp_path):
    path = tmp_path / "j.csv"
    path.write_text("1,a,x,2\n1,a,y,high\n")
    result = subprocess.run([sys.executable, "-m", "evaluation.agreement", str(path)], capture_output=True, text=True)
    assert result.returncode == 2
    assert f"{path}:2: field 'grade'" in result.stderr
