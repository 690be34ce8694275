"""Forms of the answers pages: a RAG run file to import, and a machine judge to propose or assign nuggets."""

from __future__ import annotations

from django import forms

from judging.machines.models import MachineJudge
from judging.machines.providers import PROVIDERS


class AnswerRunImportForm(forms.Form):
    file = forms.FileField(help_text="TREC RAG 2024 or 2025 answers: JSON lines, one per run and topic.")
    create_missing = forms.BooleanField(
        required=False, help_text="Create the topics and segments this collection lacks as placeholders."
    )


class MachineNuggetsForm(forms.Form):
    judge = forms.ModelChoiceField(
        queryset=MachineJudge.objects.none(), empty_label=None, help_text="A chat-completions judge."
    )

    def __init__(self, *args, collection, **kwargs):
        super().__init__(*args, **kwargs)
        writers = [name for name, provider in PROVIDERS.items() if not provider.offline]
        self.fields["judge"].queryset = MachineJudge.objects.filter(collection=collection, provider__in=writers)
