"""Forms of the judging pages."""

from django import forms

from .importers.services import IMPORT_KINDS


class ImportForm(forms.Form):
    kind = forms.ChoiceField(choices=[(k, k.capitalize()) for k in IMPORT_KINDS])
    file = forms.FileField(help_text="Format guessed from the content: TREC, TSV or JSONL (SGML for documents).")
    skip_invalid = forms.BooleanField(required=False, help_text="Import the valid lines and list the others.")
