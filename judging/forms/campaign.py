"""Forms of the campaign's pages: a judgment saved, files imported, a pool built, topics assigned, an item
adjudicated, an account made."""

from django import forms

from config.forms import text_field
from judging import progress
from judging.imports.services import IMPORT_KINDS
from judging.models import (
    MAX_NOTE_CHARS,
    MAX_REASON_CHARS,
    ROLE_ADMIN,
    ROLE_ASSESSOR,
    ROLE_PARTICIPANT,
    ROLE_RESEARCHER,
    Run,
    Topic,
)
from judging.ordering.core import pool_strategies
from judging.sources.models import SourceRole


class JudgmentSaveForm(forms.Form):
    """What the judging page posts for one document."""

    action = forms.ChoiceField(choices=[("", "save"), ("delete", "delete")], required=False)
    grade = forms.IntegerField(required=False)  # the write service checks it against the collection's scale
    note = text_field(max_length=MAX_NOTE_CHARS, strip=False)
    cannot_judge_reason = text_field(max_length=MAX_REASON_CHARS)
    seconds_total = forms.FloatField(required=False, min_value=0, max_value=1e7)
    entry = forms.RegexField(regex=r"^[0-9a-f]{0,32}$", required=False, max_length=32)  # the queue entry's key


class MultipleFileInput(forms.ClearableFileInput):
    allow_multiple_selected = True


class MultipleFileField(forms.FileField):
    """One or many files (Django's documented pattern for `<input type=file multiple>`): a list of them."""

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("widget", MultipleFileInput())
        super().__init__(*args, **kwargs)

    def clean(self, data, initial=None):
        single = super().clean
        return [single(item, initial) for item in data] if isinstance(data, list | tuple) else [single(data, initial)]


class ImportForm(forms.Form):
    kind = forms.ChoiceField(choices=[(k, k.capitalize()) for k in IMPORT_KINDS])
    file = MultipleFileField(
        label="Files",
        help_text="One or many files (a track's runs at once), or a .zip or .tar.gz of them: one job, one report, "
        "all or nothing. Format guessed from the content: TREC, TSV or JSONL (SGML for documents).",
    )
    skip_invalid = forms.BooleanField(required=False, help_text="Import the valid lines and list the others.")
    create_missing = forms.BooleanField(
        required=False,
        label="Create what is missing (runs, qrels)",
        help_text="Topics and documents the files name that this collection doesn't have are made as placeholders "
        "(the number or docno; their text from a later import), so submitted runs can be evaluated at once.",
    )
    pooled_only = forms.BooleanField(
        required=False,
        label="Only the documents the pools need (documents)",
        help_text="Read the corpus as a stream (gzip too) and keep only the pooled documents, passing over the rest: "
        "a 10-million-document corpus for a 30,000-item pool.",
    )
    top_k = forms.IntegerField(
        required=False, min_value=1, max_value=10_000, label="…and the runs' top k",
        help_text="Also keep every document some run ranks in a topic's top k (for unjudged documents' text).",
    )  # fmt: skip
    source = forms.CharField(
        required=False,
        max_length=60,
        label="Source of the labels (qrels)",
        help_text="Whose labels these are, e.g. nist-2024 (default: imported); a fifth column in the file names its "
        "own. Each source is listed, with its role, on the collection's Sources page.",
    )
    model_family = forms.CharField(
        required=False,
        max_length=100,
        label="Model family of the runs",
        help_text="Runs only: the model family they use (e.g. gpt-4o, llama-3), if any. A run sharing a machine "
        "judge's family is marked, and that judge's boards are also shown without it.",
    )
    role = forms.ChoiceField(
        choices=SourceRole.choices,
        initial=SourceRole.COUNTED,
        required=False,
        label="Their role (qrels)",
        help_text="Counted in the consensus, advisory (measured, never counted), or gold (the reference).",
    )


class PoolForm(forms.Form):
    strategy = forms.ChoiceField(choices=lambda: [(s.name, s.label) for s in pool_strategies.REGISTRY.values()])
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
    BALANCE, ADD = "balance", "add"
    assessors = forms.ModelMultipleChoiceField(queryset=progress.assessors(), widget=forms.CheckboxSelectMultiple)
    topics = forms.ModelMultipleChoiceField(
        queryset=Topic.objects.none(), required=False, help_text="None chosen: every topic."
    )
    mode = forms.ChoiceField(
        choices=[
            (BALANCE, "Fill each topic up to its k assessors, balancing the work"),
            (ADD, "Add the chosen assessors to the chosen topics (beyond k: they share the topic's items)"),
        ],
        initial=BALANCE,
        required=False,  # a script posting only assessors (and topics) gets the balanced fill
        widget=forms.RadioSelect,
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


def _assessors_field(assessors: list, label: str, help_text: str) -> forms.TypedMultipleChoiceField:
    """Check boxes choosing some of a collection's assessors, as user ids."""
    return forms.TypedMultipleChoiceField(
        choices=[(user_id, username) for user_id, username in assessors],
        coerce=int,
        required=False,
        widget=forms.CheckboxSelectMultiple,
        label=label,
        help_text=help_text,
    )


class UserCreateForm(forms.Form):
    username = forms.RegexField(
        regex=r"^[\w.@+-]{1,150}$", max_length=150, help_text="Letters, digits and @ . + - _ only."
    )
    role = forms.ChoiceField(
        choices=[(r, r.capitalize()) for r in (ROLE_ASSESSOR, ROLE_RESEARCHER, ROLE_PARTICIPANT, ROLE_ADMIN)],
        initial=ROLE_ASSESSOR,
        help_text="A participant submits runs for the team an organizer adds them to (a track's page).",
    )
    email = forms.EmailField(required=False)
