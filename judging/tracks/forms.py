"""Forms of a track's pages: a run to submit with its questionnaire, the organizer's settings, a team, and the pool
by priority. Times are UTC, as the pages say."""

from __future__ import annotations

from django import forms

from judging.ordering.core import pool_strategies
from judging.tracks.models import MissingDocuments, RunType

UTC_TIME = forms.DateTimeInput(attrs={"type": "datetime-local"}, format="%Y-%m-%dT%H:%M")


class SubmissionForm(forms.Form):
    file = forms.FileField(help_text="A TREC run file (qid Q0 docno rank score tag), one run tag.")
    run_type = forms.ChoiceField(choices=RunType.choices, label="Run type")
    priority = forms.IntegerField(min_value=1, initial=1, help_text="1 is pooled first.")
    model_family = forms.CharField(
        required=False, max_length=100, help_text="The model family the run uses (e.g. llama-3), if any."
    )
    description = forms.CharField(required=False, max_length=5000, widget=forms.Textarea(attrs={"rows": 3}))

    def __init__(self, *args, runs_per_team: int, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["priority"].max_value = runs_per_team
        self.fields["priority"].widget.attrs["max"] = runs_per_team
        self.fields["priority"].help_text = f"1 to {runs_per_team}; 1 is pooled first."


class TrackSettingsForm(forms.Form):
    opens = forms.DateTimeField(required=False, widget=UTC_TIME, label="Opens (UTC)")
    closes = forms.DateTimeField(required=False, widget=UTC_TIME, label="Closes (UTC)")
    runs_per_team = forms.IntegerField(min_value=1, max_value=50, label="Runs per team")
    depth = forms.IntegerField(min_value=1, label="Most documents per topic")
    missing_documents = forms.ChoiceField(choices=MissingDocuments.choices, label="Documents the collection lacks")
    released = forms.BooleanField(required=False, label="Results released to the teams")
    live_reports = forms.BooleanField(required=False, label="Teams read their own reports before the release")


class TeamForm(forms.Form):
    name = forms.CharField(max_length=100)
    members = forms.CharField(
        max_length=2000, help_text="Usernames of existing accounts, separated by commas or spaces (invite them first)."
    )

    def clean_members(self) -> list[str]:
        names = [name for name in self.cleaned_data["members"].replace(",", " ").split() if name]
        if not names:
            raise forms.ValidationError("name at least one member")
        return names


class PriorityPoolForm(forms.Form):
    strategy = forms.ChoiceField(choices=[(name, s.label) for name, s in pool_strategies.REGISTRY.items()])
    first = forms.IntegerField(min_value=1, initial=100, label="Depth (or budget) of each team's priority-1 runs")
    rest = forms.IntegerField(
        min_value=1, required=False, initial=20, label="Depth (or budget) of their other runs (empty: not pooled)"
    )

    def depths(self, priorities: int) -> dict[int, int]:
        """{priority: size} for priorities 1..`priorities`."""
        rest = self.cleaned_data.get("rest")
        sizes = {1: self.cleaned_data["first"]}
        if rest:
            sizes |= {priority: rest for priority in range(2, priorities + 1)}
        return sizes
