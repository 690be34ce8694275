"""Forms of the search pages: an endpoint's settings, a fetch's query set and variables, and a test query."""

from __future__ import annotations

from django import forms

from config.forms import fields_by_kind
from judging.search_fetch.configs import SETTINGS
from judging.search_fetch.core.engines import ENGINES
from judging.search_fetch.models import Auth, SearchEndpoint


def _lines(text: str) -> dict[str, str]:
    """`name=value` lines as {name: value}."""
    found = {}
    for line in (text or "").splitlines():
        if not line.strip():
            continue
        name, sep, value = line.strip().partition("=")
        if not sep or not name.strip().isidentifier():
            raise forms.ValidationError(f"{line.strip()!r}: write name=value, e.g. title_boost=2")
        found[name.strip()] = value.strip()
    return found


class VariablesField(forms.CharField):
    widget = forms.Textarea(attrs={"rows": 3})

    def to_python(self, value):
        return _lines(super().to_python(value))

    def prepare_value(self, value):
        if isinstance(value, dict):
            return "\n".join(f"{k}={v}" for k, v in value.items())
        return value


class SearchEndpointForm(forms.ModelForm):
    variables = VariablesField(
        required=False, help_text="Tuning variables, name=value a line; a template uses them as {{name}}."
    )

    class Meta:
        model = SearchEndpoint
        fields = ["name", *SETTINGS]
        widgets = {
            "template": forms.Textarea(attrs={"rows": 6, "spellcheck": "false"}),
            "engine": forms.RadioSelect,
        }

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        fields_by_kind(self, control="engine", kinds={name: engine.FORM_FIELDS for name, engine in ENGINES.items()})
        secret = ("secret_env",)
        fields_by_kind(self, control="auth", kinds={Auth.BASIC: secret, Auth.BEARER: secret,
                                                    Auth.API_KEY: (*secret, "auth_header")})  # fmt: skip

    def settings(self) -> dict:
        data = dict(self.cleaned_data)
        data.pop("name", None)
        return data


class TryForm(forms.Form):
    query = forms.CharField(
        max_length=500, required=False, help_text="A query to send as a test: nothing is saved."
    )  # not required: saving the endpoint posts this form too


class FetchForm(forms.Form):
    typed = forms.CharField(
        required=False, widget=forms.Textarea(attrs={"rows": 3}), label="Queries",
        help_text="One query a line; empty: every topic of the collection.",
    )  # fmt: skip
    variables = VariablesField(required=False, help_text="This fetch's tuning variables (over the endpoint's).")
