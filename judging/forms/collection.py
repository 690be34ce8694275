"""The collection's settings form: scale, measures, consensus, judging order, quality and agreement settings,
each field with the words the page shows."""

from django import forms

from config.forms import text_field
from judging.forms.campaign import _assessors_field
from judging.machines.models import VerificationSettings
from judging.models import (
    BEST_RANK,
    MAX_CHECK_RATE,
    MAX_SCALE,
    ConsensusMethod,
)
from judging.ordering.core.orders import order_choices
from judging.preferences.models import PreferenceSettings

SUGGESTED_MEASURES = [
    "P@5", "P@10", "P@20", "R@100", "R@1000", "AP", "GMAP", "Rprec", "RR", "Bpref", "infAP",
    "nDCG", "nDCG@10", "nDCG@20", "ERR@10", "Success@10", "Judged@10",
]  # fmt: skip


SCALE_CHOICES = [(1, "Binary: 0 not relevant, 1 relevant")] + [(k, f"Graded 0–{k}") for k in range(2, MAX_SCALE + 1)]


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
        choices=PreferenceSettings._meta.get_field("judging_mode").choices, initial="graded", required=False,
        help_text=PreferenceSettings._meta.get_field("judging_mode").help_text,
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
                choices=VerificationSettings._meta.get_field("verification_mode").choices,
                initial="blind",
                required=False,
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
