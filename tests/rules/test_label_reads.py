"""Labels are read through the selectors only: a read of Judgment rows (through the model's manager, a related
manager such as `topic.judgments`, or a lookup such as `judgments__grade`) outside a selectors module or a service
fails, so that whose labels count is decided in one place (`judging/sources/selectors.py`) and never by hand.
The rule is also run on a copy of the project with a read injected into a view, where it must fail."""

from __future__ import annotations

import ast
from pathlib import Path

from tests.rules.project import ROOT, inject, project_copy, source_files

MODELS = {"Judgment", "JudgmentHistory"}
RELATED = {"judgments", "judgment_set", "judgmenthistory_set"}
# What a related manager is read with (a field named "judgments" holding a count is not a manager).
QUERYSET_METHODS = {
    "all", "filter", "exclude", "get", "values", "values_list", "count", "exists", "order_by", "aggregate",
    "annotate", "select_related", "first", "last", "iterator", "distinct", "only", "defer",
}  # fmt: skip
# Reads allowed besides selectors and services, each for its reason.
ALLOWED = {
    "judging/admin.py": "the Django admin lists the model for operators (read-only there)",
    "judging/progress.py": "the dashboard's reads, each through a sources selector (it is a selectors module by role)",
}


def is_reader(relative: str) -> bool:
    parts = relative.split("/")
    return "selectors" in parts[:-1] or parts[-1] in ("selectors.py", "services.py") or "services" in parts[:-1]


def label_reads_in(source: str) -> list[tuple[int, str]]:
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Attribute) and node.attr == "objects" and ast.unparse(node.value) in MODELS:
            found.append((node.lineno, f"{ast.unparse(node.value)}.objects"))
        elif (
            isinstance(node, ast.Attribute)
            and node.attr in QUERYSET_METHODS
            and isinstance(node.value, ast.Attribute)
            and node.value.attr in RELATED
        ):
            found.append((node.lineno, f".{node.value.attr}"))
        elif isinstance(node, ast.keyword) and node.arg and node.arg.startswith("judgments__"):
            found.append((node.value.lineno, node.arg))
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value.startswith("judgments__"):
            found.append((node.lineno, node.value))
    return sorted(set(found))


def label_reads_outside_selectors(root: Path = ROOT) -> dict[str, list]:
    outside = {}
    for relative, path in source_files(root):
        if is_reader(relative) or relative in ALLOWED or "models" in relative.removesuffix(".py").split("/"):
            continue
        found = label_reads_in(path.read_text())
        if found:
            outside[relative] = found
    return outside


def test_labels_are_read_only_through_the_selectors():
    assert label_reads_outside_selectors() == {}


def test_the_check_sees_managers_related_managers_and_lookups():
    source = (
        "rows = Judgment.objects.filter(pk=1)\n"
        "mine = topic.judgments.all()\n"
        "busy = Topic.objects.filter(judgments__grade=2)\n"
        "n = Count('judgments__id')\n"
        "judgments = 3\n"
        "total = row.judgments + quality.judgments\n"
    )
    assert label_reads_in(source) == [
        (1, "Judgment.objects"), (2, ".judgments"), (3, "judgments__grade"), (4, "judgments__id"),
    ]  # fmt: skip
    assert is_reader("judging/sources/selectors.py") and is_reader("judging/quality/services/pauses.py")
    assert not is_reader("judging/views/assessor.py")


def test_the_rule_fails_on_a_view_reading_judgments_by_hand(tmp_path):
    root = project_copy(tmp_path)
    inject(
        root,
        "judging/views/campaign.py",
        "def v(collection):\n    return Judgment.objects.filter(topic__collection=collection)\n",
    )
    assert list(label_reads_outside_selectors(root)) == ["judging/views/campaign.py"]
