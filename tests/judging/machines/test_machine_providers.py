"""Machine-judge providers come from one registry: every provider a judge can be given is registered, an unknown
one is refused naming the field, and no service or view chooses by the provider's name."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.core.exceptions import ValidationError

from judging.machines.models import MachineJudge, MachineProvider
from judging.machines.providers import PROVIDERS, provider_of

ROOT = Path(__file__).resolve().parents[3]


def test_every_provider_a_judge_can_have_is_registered():
    assert set(PROVIDERS) == set(MachineProvider.values)


def test_an_unknown_provider_is_refused_naming_the_field():
    with pytest.raises(ValidationError) as refused:
        provider_of(MachineJudge(provider="bard"))
    assert list(refused.value.message_dict) == ["provider"]


def branches_on_the_provider(source: str) -> list[int]:
    return [n for n, line in enumerate(source.splitlines(), 1) if re.search(r"\.provider\s*(==|!=|in\b)", line)]


def test_no_python_module_branches_on_a_provider_name():
    found = {
        str(path.relative_to(ROOT)): lines
        for path in (ROOT / "judging").rglob("*.py")
        if (lines := branches_on_the_provider(path.read_text()))
    }
    assert found == {}
    assert branches_on_the_provider("if judge.provider == 'lexical':\n    pass\n") == [1]
