"""Roles are named by their constants (`judging.models.ROLE_*`), never by a string literal in a role check: one
spelling, so a renamed role cannot leave a check that silently grants nothing."""

from __future__ import annotations

import re
from pathlib import Path

from tests.rules.project import ROOT, inject, project_copy, source_files

ROLE = r'"(?:admin|assessor|researcher|participant)"'
LITERAL_ROLE_CHECK = re.compile(
    rf"user_roles\([^)]*\)\s*&\s*\{{[^}}]*{ROLE}|{ROLE}\s+(?:not\s+)?in\s+user_roles|role_required\([^)]*{ROLE}"
)


def literal_role_checks(root: Path = ROOT) -> list[str]:
    found = []
    for relative, path in source_files(root):
        for number, line in enumerate(path.read_text().splitlines(), start=1):
            if LITERAL_ROLE_CHECK.search(line):
                found.append(f"{relative}:{number}")
    return found


def test_role_checks_name_roles_by_their_constants():
    assert literal_role_checks() == []


def test_the_rule_catches_a_role_named_by_a_literal(tmp_path):
    root = project_copy(tmp_path)
    inject(root, "judging/views/people.py", 'def slip(request):\n    return "admin" in user_roles(request.user)\n')
    inject(root, "judging/rag/views/answers.py", 'checked = role_required("assessor", ROLE_ADMIN)\n')
    assert literal_role_checks(root) == [
        f"judging/rag/views/answers.py:{_last_line(root, 'judging/rag/views/answers.py')}",
        f"judging/views/people.py:{_last_line(root, 'judging/views/people.py')}",
    ]


def _last_line(root: Path, relative: str) -> int:
    return len((root / relative).read_text().splitlines())
