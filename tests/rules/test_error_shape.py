"""Every JSON error, from the API or from a page's script endpoint, has the one shape `config.api_errors` writes
(`{"error": {"status", "code", "message", "fields"?}}`): no module builds an error answer of its own."""

from __future__ import annotations

import re
from pathlib import Path

from tests.rules.project import ROOT, inject, project_copy, source_files

OWN_ERROR = re.compile(r"""JsonResponse\(\s*\{\s*["']error["']""")
THE_ONE_PLACE = "config/api_errors.py"


def error_answers_built_by_hand(root: Path = ROOT) -> list[str]:
    return [
        f"{relative}:{number}"
        for relative, path in source_files(root)
        if relative != THE_ONE_PLACE
        for number, line in enumerate(path.read_text().splitlines(), start=1)
        if OWN_ERROR.search(line)
    ]


def test_json_errors_come_from_the_one_helper():
    assert error_answers_built_by_hand() == []


def test_the_rule_catches_an_error_answer_built_by_hand(tmp_path):
    root = project_copy(tmp_path)
    inject(
        root, "evaluation/views/leaderboard.py", 'def slip():\n    return JsonResponse({"error": "no"}, status=400)\n'
    )
    assert error_answers_built_by_hand(root) == [
        f"evaluation/views/leaderboard.py:{len((root / 'evaluation/views/leaderboard.py').read_text().splitlines())}"
    ]
