"""Forms of the judging pages."""

from django import forms

from config.forms import text_field
from judging import progress
from judging.imports.services import IMPORT_KINDS
from judging.models import (
    BEST_RANK,
    MAX_CHECK_RATE,
    MAX_NOTE_CHARS,
    MAX_REASON_CHARS,
    MAX_SCALE,
    ROLE_ADMIN,
    ROLE_ASSESSOR,
    ROLE_RESEARCHER,
    Collection,
    ConsensusMethod,
    Run,
    Topic,
)
from judging.ordering.core import pool_strategies
from judging.ordering.core.orders import order_choices
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


SUGGESTED_MEASURES = [
    "P@5", "P@10", "P@20", "R@100", "R@1000", "AP", "GMAP", "Rprec", "RR", "Bpref", "infAP",
    "nDCG", "nDCG@10", "nDCG@20", "ERR@10", "Success@10", "Judged@10",
]  # fmt: skip
SCALE_CHOICES = [(1, "Binary: 0 not relevant, 1 relevant")] + [(k, f"Graded 0–{k}") for k in range(2, MAX_SCALE + 1)]


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


class CollectionForm(forms.Form):
    """A collection's settings as an admin sets them in the browser; the scale's labels come as grade_N_label and
    grade_N_description fields, one pair per grade 0..5 (those above the chosen scale are ignored)."""

    name = forms.CharField(max_length=200)
    description = text_field(max_length=5000)
    max_grade = forms.TypedChoiceField(choices=SCALE_CHOICES, coerce=int, initial=3, label="Relevance scale")
    relevance_threshold = forms.IntegerField(
        min_value=1, max_value=MAX_SCALE, initial=1, help_text="Lowest grade counted as relevant by binary measures."
    )
    assessors_per_item = forms.IntegerField(min_value=1, max_value=20, initial=1)
    disagreement_tolerance = forms.IntegerField(
        min_value=0, max_value=MAX_SCALE, initial=0, help_text="Grades further apart than this go to adjudication."
    )
    pause_below = forms.FloatField(
        required=False,
        min_value=0.0,
        max_value=1.0,
        label="Pause an assessor below",
        help_text="A share from 0 to 1: an assessor whose latest judgments agree with gold or the other assessors "
        "less often is paused until you resume them. Empty: never.",
    )
    pause_window = forms.IntegerField(
        required=False, min_value=5, max_value=500, initial=20, label="over their latest",
        help_text="comparable judgments (20 when empty).",
    )  # fmt: skip
    gold_rate = forms.FloatField(
        required=False, min_value=0.0, max_value=MAX_CHECK_RATE, initial=0.0, label="Gold items mixed in",
        help_text="Share of what each assessor is shown that is gold items others already judged (adjudicated, or "
        "a gold assessor's), unmarked, to measure their accuracy (0 to 0.5; 0: none).",
    )  # fmt: skip
    repeat_rate = forms.FloatField(
        required=False, min_value=0.0, max_value=MAX_CHECK_RATE, initial=0.0, label="Repeated items",
        help_text="Share of each assessor's judged documents shown to them again a few judgments later, unmarked, "
        "to measure their consistency; the first label is kept and counts (0 to 0.5; 0: none).",
    )  # fmt: skip
    judging_mode = forms.ChoiceField(
        choices=Collection._meta.get_field("judging_mode").choices, initial="graded", required=False,
        help_text=Collection._meta.get_field("judging_mode").help_text,
    )  # fmt: skip
    preference_candidates = forms.IntegerField(
        required=False, min_value=2, max_value=64, initial=8, label="Tournament candidates per topic"
    )
    preference_top = forms.IntegerField(
        required=False, min_value=1, max_value=64, initial=3, label="Top documents to rank"
    )
    consensus_method = forms.ChoiceField(choices=ConsensusMethod.choices, initial=ConsensusMethod.MAJORITY)
    measures = forms.MultipleChoiceField(
        choices=[(m, m) for m in SUGGESTED_MEASURES],
        required=False,
        widget=forms.CheckboxSelectMultiple,
        initial=["P@10", "AP", "nDCG@10", "RR", "Bpref", "Judged@10"],
    )
    more_measures = text_field(max_length=1000)
    more_measures.help_text = (
        "Other measures by name, comma-separated, in ir_measures' or trec_eval's spelling (e.g. P@50, ndcg_cut.5, "
        "ERR@20): see the list of measures."
    )
    agreement_measure = forms.CharField(max_length=100, initial="AP")
    ir_datasets_id = forms.CharField(
        max_length=200, required=False, label="ir_datasets id",
        help_text="A standard collection (e.g. irds:msmarco-passage/trec-dl-2019/judged or antique/test): a new "
        "collection imports its topics and qrels at once; a document without text is read from the dataset's "
        "document store when an assessor opens it. Read from the server's IR_DATASETS_HOME, never downloaded "
        "unless the operator allows it.",
    )  # fmt: skip
    trec_eval_version = forms.TypedChoiceField(
        choices=[(10, "trec_eval 10.0"), (9, "trec_eval 9.0.x (as pytrec_eval)")],
        coerce=int,
        initial=10,
        required=False,
        empty_value=10,
        label="Conventions of",
        help_text="Where the versions differ (recall levels of iprec_at_recall and 11pt_avg), whose numbers to give.",
    )
    blind = forms.BooleanField(required=False, initial=True, help_text="Assessors never see runs or others' labels.")
    shuffle_within_priority = forms.BooleanField(required=False, initial=True)
    judging_order = forms.TypedChoiceField(
        choices=order_choices,
        initial=BEST_RANK,
        required=False,
        empty_value=BEST_RANK,
        help_text="Adaptive orders choose each assessor's next document after every judgment, to find the relevant "
        "ones with fewer judgments.",
    )
    researchers_see_assessors = forms.BooleanField(required=False)
    guidelines = text_field(max_length=100_000, strip=False)
    guidelines.widget = forms.Textarea(attrs={"rows": 8})
    guidelines.help_text = "Markdown: headings, lists, tables, links."
    description.widget = forms.Textarea(attrs={"rows": 2})

    def __init__(
        self,
        *args,
        grades: dict[int, tuple[str, str]] | None = None,
        assessors: list | None = None,
        machine_judges: list | None = None,
        **kwargs,
    ):
        super().__init__(*args, **kwargs)
        if machine_judges:  # an existing collection's machine judges: people can verify one's labels
            self.fields["verification_judge"] = forms.TypedChoiceField(
                choices=[("", "None: the judging order decides"), *machine_judges],
                coerce=int,
                empty_value=None,
                required=False,
                label="Verify a machine judge",
                help_text="Assessors' queues put this judge's likeliest errors first (a stated score: other judges "
                "disagreeing, a grade at the relevance threshold, the item's weight in the runs' AP).",
            )
            self.fields["verification_mode"] = forms.ChoiceField(
                choices=Collection._meta.get_field("verification_mode").choices, initial="blind", required=False
            )
        if assessors:  # an existing collection's assessors: any of them can be advisory, or gold
            self.fields["advisory_assessors"] = _assessors_field(
                assessors,
                "Advisory assessors",
                "Their labels are measured in agreement and shown, never counted in the consensus the metrics come "
                "from (implicit judgments from clicks are advisory from the start).",
            )
            self.fields["gold_assessors"] = _assessors_field(
                assessors,
                "Gold assessors",
                "Their labels are gold, beside the adjudicated items (an imported reference qrels, say): the "
                "reliability table and the pause measure everyone else against them.",
            )
        for value in range(MAX_SCALE + 1):
            label, description = (grades or {}).get(value, ("", ""))
            self.fields[f"grade_{value}_label"] = forms.CharField(max_length=60, required=False, initial=label)
            self.fields[f"grade_{value}_description"] = text_field(max_length=1000)
            self.fields[f"grade_{value}_description"].initial = description

    def grade_rows(self):
        return [(v, self[f"grade_{v}_label"], self[f"grade_{v}_description"]) for v in range(MAX_SCALE + 1)]

    def clean(self):
        data = super().clean()
        if data.get("pause_window") is None:
            data["pause_window"] = 20
        for rate in ("gold_rate", "repeat_rate"):
            data[rate] = data.get(rate) or 0.0
        data["judging_mode"] = data.get("judging_mode") or "graded"
        data["preference_candidates"] = data.get("preference_candidates") or 8
        data["preference_top"] = data.get("preference_top") or 3
        top = data.get("max_grade")
        if top is None:
            return data
        if data.get("relevance_threshold") and data["relevance_threshold"] > top:
            self.add_error("relevance_threshold", f"must be between 1 and the scale's top grade {top}")
        extra = [m.strip() for m in data.get("more_measures", "").split(",") if m.strip()]
        data["measure_names"] = list(dict.fromkeys([*data.get("measures", []), *extra]))
        if not data["measure_names"]:
            self.add_error("measures", "choose at least one measure")
        data["grades"] = [
            (data.get(f"grade_{v}_label") or f"Grade {v}", data.get(f"grade_{v}_description", ""))
            for v in range(top + 1)
        ]
        return data

    def settings(self) -> dict:
        """The service's keyword arguments (the scale's labels apart)."""
        data = self.cleaned_data
        names = ["description", "max_grade", "relevance_threshold", "assessors_per_item", "disagreement_tolerance"]
        names += ["consensus_method", "agreement_measure", "blind", "shuffle_within_priority", "guidelines"]
        names += ["judging_order", "pause_below", "pause_window", "gold_rate", "repeat_rate"]
        names += ["judging_mode", "preference_candidates", "preference_top"]
        names += ["researchers_see_assessors", "trec_eval_version", "ir_datasets_id"]
        names += ["advisory_assessors", "gold_assessors"] if "advisory_assessors" in self.fields else []
        if "verification_judge" in self.fields:
            names += ["verification_judge", "verification_mode"]
        return {name: data[name] for name in names} | {"name": data["name"], "measures": data["measure_names"]}


class UserCreateForm(forms.Form):
    username = forms.RegexField(
        regex=r"^[\w.@+-]{1,150}$", max_length=150, help_text="Letters, digits and @ . + - _ only."
    )
    role = forms.ChoiceField(
        choices=[(r, r.capitalize()) for r in (ROLE_ASSESSOR, ROLE_RESEARCHER, ROLE_ADMIN)], initial=ROLE_ASSESSOR
    )
    email = forms.EmailField(required=False)
