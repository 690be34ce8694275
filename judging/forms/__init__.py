"""Forms of the judging pages: `campaign` (judging, imports, pools, assignments, adjudication, people) and
`collection` (a collection's settings)."""

from judging.forms.campaign import (
    AdjudicateForm,
    AssignForm,
    ImportForm,
    JudgmentSaveForm,
    MultipleFileField,
    MultipleFileInput,
    PoolForm,
    ReassignForm,
    UserCreateForm,
)
from judging.forms.collection import SCALE_CHOICES, SUGGESTED_MEASURES, CollectionForm

__all__ = [
    "SCALE_CHOICES",
    "SUGGESTED_MEASURES",
    "AdjudicateForm",
    "AssignForm",
    "CollectionForm",
    "ImportForm",
    "JudgmentSaveForm",
    "MultipleFileField",
    "MultipleFileInput",
    "PoolForm",
    "ReassignForm",
    "UserCreateForm",
]
