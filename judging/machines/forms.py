"""Forms of the machine-judge pages: a judge's configuration, a run, and a prompt's preview."""

from __future__ import annotations

import json

from django import forms

from config.forms import fields_by_kind
from judging.machines.core.prompts import TEMPLATES
from judging.machines.models import MachineJudge, MachineProvider
from judging.machines.providers import PROVIDERS
from judging.models import Topic

PROMPTS = [
    ("umbrela", "UMBRELA, 0–3 (Upadhyay et al. 2024, after Thomas et al.)"),
    ("dna", "DNA: description, narrative, aspects, 0–2 (Thomas et al., SIGIR 2024)"),
    ("binary", "Binary: relevant or not"),
    ("custom", "My own template (below)"),
]
assert {p for p, _ in PROMPTS} == {*TEMPLATES, "custom"}


class ScaleMapField(forms.CharField):
    """{prompt grade: collection grade} written as `0:0, 1:0, 2:1, 3:1` (or JSON); empty maps the scales evenly."""

    def to_python(self, value):
        text = (super().to_python(value) or "").strip()
        if not text:
            return {}
        if text.startswith("{"):
            try:
                mapping = json.loads(text)
            except ValueError as error:
                raise forms.ValidationError("write it as 0:0, 1:0, 2:1, 3:1 or as JSON") from error
        else:
            mapping = {}
            for part in text.split(","):
                key, sep, value = part.partition(":")
                if not sep or not key.strip().isdigit() or not value.strip().isdigit():
                    raise forms.ValidationError(f"{part.strip()!r}: write prompt grade:collection grade, e.g. 3:1")
                mapping[key.strip()] = int(value)
        return mapping

    def prepare_value(self, value):
        if isinstance(value, dict):
            return ", ".join(f"{k}:{v}" for k, v in value.items())
        return value


class MachineJudgeForm(forms.ModelForm):
    """The page's form for a judge; the service validates what the form cannot (the URL, the template, the map)."""

    prompt = forms.ChoiceField(choices=PROMPTS, initial="umbrela")
    scale_map = ScaleMapField(
        required=False,
        label="Scale map",
        help_text="Prompt grade : collection grade, e.g. 0:0, 1:0, 2:1, 3:1. Empty: the scales mapped evenly.",
    )
    template = forms.CharField(
        required=False,
        widget=forms.Textarea(attrs={"rows": 8}),
        help_text="For 'My own template': {title}, {description}, {narrative} and {document}; the reply must end in "
        "'##final score: N'. A literal brace is written twice.",
    )

    class Meta:
        model = MachineJudge
        fields = [
            "name", "provider", "members", "combine", "base_url", "model", "api_key_env", "prompt", "template",
            "template_max_grade", "scale_map", "batch", "samples", "concurrency", "requests_per_minute", "timeout",
            "retries", "price_prompt", "price_completion", "budget_requests", "budget_tokens", "budget_money",
            "budget_words", "model_family", "batch_api", "batch_max_requests", "batch_max_bytes", "batch_poll_seconds",
            "batch_discount",
        ]  # fmt: skip
        labels = {
            "batch_api": "Send as batch jobs (Batch API)",
            "batch_max_requests": "Requests per batch file",
            "batch_max_bytes": "Bytes per batch file",
            "batch_poll_seconds": "Seconds between looks at a batch",
            "batch_discount": "Batch discount (%)",
        }
        help_texts = {
            "api_key_env": "The name of a WORKBENCH_SECRET_* variable the operator set (e.g. WORKBENCH_SECRET_OPENAI), "
            "never the key itself.",
            "base_url": "The server's base, e.g. https://api.openai.com/v1. A server inside the network (localhost, "
            "10.x, 192.168.x...) needs the operator's WORKBENCH_OUTBOUND_ALLOW.",
        }
        widgets = {
            "provider": forms.RadioSelect(choices=MachineProvider.choices),
            "batch": forms.Select(choices=[("pair", "One call per pair"), ("topic", "One call per topic (JSON list)")]),
        }

    def __init__(self, *args, collection=None, **kwargs):
        super().__init__(*args, **kwargs)
        judges = MachineJudge.objects.filter(collection=collection).exclude(provider=MachineProvider.PANEL)
        if self.instance.pk:
            judges = judges.exclude(pk=self.instance.pk)
        self.fields["members"].queryset = judges.order_by("name")
        self.fields["members"].help_text = "For a panel: two or more of this collection's judges."
        self.fields["members"].widget = forms.CheckboxSelectMultiple(choices=self.fields["members"].choices)
        fields_by_kind(self, control="provider", kinds={name: p.form_fields for name, p in PROVIDERS.items()})

    def settings(self) -> dict:
        data = dict(self.cleaned_data)
        data.pop("name", None)
        return {key: ("" if value is None and key in ("base_url", "model", "api_key_env") else value)
                for key, value in data.items()}  # fmt: skip


class MachineRunForm(forms.Form):
    topics = forms.ModelMultipleChoiceField(
        queryset=Topic.objects.none(), required=False, help_text="None chosen: every topic."
    )
    limit = forms.IntegerField(required=False, min_value=1, help_text="Ask about at most this many pairs.")

    def __init__(self, *args, collection, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["topics"].queryset = Topic.objects.filter(collection=collection).order_by("id")
        self.fields["topics"].widget.attrs["size"] = 6


class MachinePreviewForm(forms.Form):
    item = forms.ChoiceField(label="Pair", help_text="A pooled (topic, document) pair.")
    template = forms.CharField(
        required=False, widget=forms.Textarea(attrs={"rows": 8}), help_text="Try a template before saving it."
    )

    def __init__(self, *args, items, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["item"].choices = items
