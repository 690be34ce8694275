"""Forms of the evaluation pages: search logs, their settings and the bridges to the offline side."""

from __future__ import annotations

from django import forms

from evaluation.online.core import click_models, traffic
from evaluation.online.core.records import LOG_FORMATS
from evaluation.online.models import SearchLog


def _names(text: str) -> list[str]:
    return [name.strip() for name in text.split(",") if name.strip()]


class SearchLogForm(forms.Form):
    name = forms.CharField(max_length=100, initial="production")
    log_format = forms.ChoiceField(choices=SearchLog.FORMATS, label="Format")


class SearchLogUploadForm(forms.Form):
    """UBI: a queries file, an events file, or both; AOL: the one log file."""

    queries = forms.FileField(required=False, label="Queries (ubi_queries JSON lines, or the AOL TSV)")
    events = forms.FileField(required=False, label="Events (ubi_events JSON lines)")

    def __init__(self, *args, search_log: SearchLog, **kwargs):
        super().__init__(*args, **kwargs)
        self.search_log = search_log
        if LOG_FORMATS[search_log.log_format].one_file:
            del self.fields["events"]
            self.fields["queries"].label = "AOL log (AnonID, Query, QueryTime, ItemRank, ClickURL)"

    def files_by_kind(self) -> dict:
        if LOG_FORMATS[self.search_log.log_format].one_file:
            return {"log": self.cleaned_data["queries"]} if self.cleaned_data.get("queries") else {}
        return {kind: self.cleaned_data[kind] for kind in ("queries", "events") if self.cleaned_data.get(kind)}

    def clean(self):
        data = super().clean()
        if not self.errors and not self.files_by_kind():
            raise forms.ValidationError("choose a file to import")
        return data


class SearchLogSettingsForm(forms.Form):
    click_actions = forms.CharField(initial="click", help_text="Event actions that are clicks, comma-separated.")
    success_actions = forms.CharField(
        required=False, help_text="Actions that are a success by themselves, e.g. add_to_cart, copy."
    )
    dwell_seconds = forms.FloatField(min_value=0, initial=30, help_text="A click this long or longer is a success.")
    session_gap_minutes = forms.FloatField(
        min_value=0.01,
        initial=30,
        label="Session gap (minutes)",
        help_text="Without a session id: a gap this long starts a new session.",
    )
    arm = forms.CharField(
        required=False,
        label="Arm field",
        help_text="'application', or a query attribute naming the experiment arm. Empty: no A/B comparison.",
    )
    control = forms.CharField(required=False, label="Control arm", help_text="Empty: the first arm by name.")
    arm_runs = forms.CharField(
        required=False,
        label="Runs behind arms",
        help_text="arm=run tag pairs, comma-separated, for the online/offline correlation.",
    )

    def as_settings(self) -> tuple[dict, dict]:
        data = self.cleaned_data
        settings = {
            "click_actions": _names(data["click_actions"]),
            "success_actions": _names(data["success_actions"]),
            "dwell_seconds": data["dwell_seconds"],
            "session_gap_minutes": data["session_gap_minutes"],
        }
        if data["arm"].strip():
            settings["arm"] = data["arm"].strip()
        if data["control"].strip():
            settings["control"] = data["control"].strip()
        arm_runs = {}
        for pair in _names(data["arm_runs"]):
            arm, equals, tag = pair.partition("=")
            if not equals or not arm.strip() or not tag.strip():
                raise forms.ValidationError({"arm_runs": f"{pair!r}: write arm=run tag"})
            arm_runs[arm.strip()] = tag.strip()
        return settings, arm_runs

    @classmethod
    def initial_for(cls, search_log: SearchLog) -> dict:
        s = search_log.settings
        return {
            "click_actions": ", ".join(s.get("click_actions", ["click"])),
            "success_actions": ", ".join(s.get("success_actions", [])),
            "dwell_seconds": s.get("dwell_seconds", 30),
            "session_gap_minutes": s.get("session_gap_minutes", 30),
            "arm": s.get("arm", ""),
            "control": s.get("control", ""),
            "arm_runs": ", ".join(f"{a}={t}" for a, t in sorted(search_log.arm_runs.items())),
        }


MODEL_LABELS = {"pbm": "Position-based model (EM)", "coec": "Clicks over expected clicks (COEC)"}
METHOD_LABELS = {
    "pps": "Proportional to traffic, without replacement",
    "strata": "Head / torso / tail, evenly",
    "zero_result": "Zero-result queries",
}


class ImplicitJudgmentsForm(forms.Form):
    model = forms.ChoiceField(choices=[(m, MODEL_LABELS[m]) for m in click_models.MODELS], initial="pbm")
    min_impressions = forms.IntegerField(min_value=1, initial=10, label="Minimum impressions")


class TrafficTopicsForm(forms.Form):
    method = forms.ChoiceField(choices=[(m, METHOD_LABELS[m]) for m in traffic.METHODS])
    size = forms.IntegerField(min_value=1, max_value=10_000, initial=50, label="Topics")
    seed = forms.IntegerField(min_value=0, initial=0)
