"""Forms of the judging pages."""

from django import forms
from django.core.validators import ProhibitNullCharactersValidator

from . import pooling, progress
from .importers.services import IMPORT_KINDS
from .models import MAX_NOTE_CHARS, MAX_REASON_CHARS, Run, Topic

NUL_MESSAGE = "contains a NUL character (often pasted by accident); remove it"


def text_field(*, max_length: int, strip: bool = True) -> forms.CharField:
    """An optional text field that refuses NUL characters (which PostgreSQL cannot store) in words a person reads."""
    field = forms.CharField(required=False, max_length=max_length, strip=strip)
    for validator in field.validators:
        if isinstance(validator, ProhibitNullCharactersValidator):
            validator.message = NUL_MESSAGE
    return field


class JudgmentSaveForm(forms.Form):
    """What the judging page posts for one document."""

    action = forms.ChoiceField(choices=[("", "save"), ("delete", "delete")], required=False)
    grade = forms.IntegerField(required=False)  # the write service checks it against the collection's scale
    note = text_field(max_length=MAX_NOTE_CHARS, strip=False)
    cannot_judge_reason = text_field(max_length=MAX_REASON_CHARS)
    seconds_total = forms.FloatField(required=False, min_value=0, max_value=1e7)


class ImportForm(forms.Form):
    kind = forms.ChoiceField(choices=[(k, k.capitalize()) for k in IMPORT_KINDS])
    file = forms.FileField(help_text="Format guessed from the content: TREC, TSV or JSONL (SGML for documents).")
    skip_invalid = forms.BooleanField(required=False, help_text="Import the valid lines and list the others.")


STRATEGY_LABELS = {
    "depth": "Depth-k union (TREC)",
    "take_n": "Take-N: fixed budget per topic, round robin over runs",
    "rrf": "Reciprocal rank fusion priority, fixed budget",
    "mtf": "Move-to-Front (Cormack et al. 1998), fixed budget",
}


class PoolForm(forms.Form):
    strategy = forms.ChoiceField(choices=[(s, STRATEGY_LABELS.get(s, s)) for s in pooling.STRATEGIES])
    size = forms.IntegerField(min_value=1, max_value=100_000, initial=10, label="Depth k or budget per topic")
    runs = forms.ModelMultipleChoiceField(
        queryset=Run.objects.none(), required=False, help_text="None chosen: every run."
    )
    more_assessors = forms.BooleanField(
        required=False, help_text="Queue documents already judged (e.g. imported qrels) again, for more labels."
    )

    def __init__(self, *args, collection, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["runs"].queryset = Run.objects.filter(collection=collection)


class AssignForm(forms.Form):
    assessors = forms.ModelMultipleChoiceField(queryset=progress.assessors(), widget=forms.CheckboxSelectMultiple)
    topics = forms.ModelMultipleChoiceField(
        queryset=Topic.objects.none(), required=False, help_text="None chosen: every topic."
    )

    def __init__(self, *args, collection, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["topics"].queryset = Topic.objects.filter(collection=collection)
        self.fields["assessors"].queryset = progress.assessors()


class ReassignForm(forms.Form):
    assessor = forms.ModelChoiceField(queryset=progress.assessors())


class AdjudicateForm(forms.Form):
    grade = forms.IntegerField(min_value=0, max_value=5)
    note = forms.CharField(required=False, max_length=2000)
