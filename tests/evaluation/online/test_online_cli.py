"""`python -m evaluation.online`: the JSON a script reads, and a clear error for a faulty log."""

import json
import subprocess
import sys

import pytest

from evaluation.online.__main__ import main


def test_the_command_prints_overall_by_day_arms_and_the_comparison(worked_files, capsys):
    code = main(
        [
            str(worked_files["queries"]),
            str(worked_files["events"]),
            "--by",
            "day",
            "--arm",
            "application",
            "--success-actions",
            "copy",
            "--rate",
            "day",
            "--json",
        ]
    )
    assert code == 0
    result = json.loads(capsys.readouterr().out)
    assert set(result) == {"overall", "by", "arms", "comparison", "rate"}
    assert result["overall"]["session_success_rate"] == pytest.approx(0.5)
    assert result["overall"]["ctr_at"] == {"1": pytest.approx(4 / 12), "2": 0.25, "3": 0.5, "4": 0.0}
    assert set(result["by"]) == {"2026-11-01", "2026-11-02"}
    assert result["comparison"]["control"] == "A"
    assert result["comparison"]["arms"]["B"]["query_ctr"]["difference"] == pytest.approx(3 / 5 - 4 / 9)
    assert [row["queries"] for row in result["rate"]["series"]] == [7, 7]


def test_a_faulty_log_is_an_error_naming_the_line(tmp_path, capsys):
    queries = tmp_path / "queries.jsonl"
    queries.write_text('{"query_id": "q", "client_id": "c", "timestamp": "soon"}\n')
    events = tmp_path / "events.jsonl"
    events.write_text("")
    assert main([str(queries), str(events), "--json"]) == 2
    assert "queries.jsonl:1: field 'timestamp'" in capsys.readouterr().err


def test_the_command_runs_as_a_module(worked_files):
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "evaluation.online",
            str(worked_files["queries"]),
            str(worked_files["events"]),
            "--json",
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["overall"]["queries"] == 14


def test_every_measure_the_command_prints_is_defined_by_list_measures(worked_files, capsys):
    main([str(worked_files["queries"]), str(worked_files["events"]), "--json"])
    printed = set(json.loads(capsys.readouterr().out)["overall"])
    assert main(["--list-measures"]) == 0
    listed = {line for line in capsys.readouterr().out.splitlines() if line and not line.startswith(" ")}
    shares = {"distinct_queries", "head_share", "torso_share", "tail_share"}  # defined with top_queries
    assert printed - shares <= listed and "rate" in listed
