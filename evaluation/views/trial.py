"""Trying a run: upload a run file and see what it would score against the current qrels, without pooling it."""

from __future__ import annotations

from django import forms
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from judging.importers.problems import ImportFailed

from ..trial_runs import trial_run_evaluate_upload
from . import researcher_collection


class TrialRunForm(forms.Form):
    run = forms.FileField(label="Run file (TREC format: qid Q0 docno rank score tag)")


@login_required
def trial_run(request: HttpRequest, collection_id: int) -> HttpResponse:
    collection = researcher_collection(request, collection_id)
    form = TrialRunForm(request.POST or None, request.FILES or None)
    result, failure = None, None
    if request.method == "POST" and form.is_valid():
        try:
            result = trial_run_evaluate_upload(collection=collection, upload=form.cleaned_data["run"])
        except ImportFailed as error:
            failure = error
    context = {"collection": collection, "form": form, "result": result, "failure": failure}
    return render(request, "evaluation/trial.html", context, status=400 if failure else 200)
