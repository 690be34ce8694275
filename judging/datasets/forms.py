"""The import page's standard-collection form."""

from __future__ import annotations

from django import forms

from judging.datasets.services import DOCUMENT_CHOICES


class DatasetForm(forms.Form):
    dataset = forms.CharField(
        max_length=200, label="ir_datasets id",
        help_text="e.g. irds:msmarco-passage/trec-dl-2019/judged or antique/test: its topics and its qrels (as a "
        "source named after it); read from the server's IR_DATASETS_HOME, never downloaded unless the operator "
        "allows it.",
    )  # fmt: skip
    documents = forms.ChoiceField(
        choices=list(zip(DOCUMENT_CHOICES, ("No documents", "Only the pooled ones", "All of them"), strict=True)),
        initial="none",
    )
