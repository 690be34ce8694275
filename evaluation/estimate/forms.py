"""The admins' draw of topics for people to judge."""

from django import forms

from evaluation.estimate.services import MAX_DRAW


class DrawForm(forms.Form):
    count = forms.IntegerField(min_value=1, max_value=MAX_DRAW, label="Topics to draw")
