"""Trying a run: upload a run file and see what it would score against the current qrels, without pooling it.

The scoring runs as a job (a large run must not hold a web worker); the page follows it and shows its result.
"""

from __future__ import annotations

from django import forms
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse

from evaluation.analysis.trial_runs import TrialResult, trial_run_start
from evaluation.pages import researcher_collection
from judging.jobs.models import Job, JobState


class TrialRunForm(forms.Form):
    run = forms.FileField(label="Run file (TREC format: qid Q0 docno rank score tag)")


@login_required
def trial_run(request: HttpRequest, collection_id: int) -> HttpResponse:
    collection = researcher_collection(request, collection_id)
    form = TrialRunForm(request.POST or None, request.FILES or None)
    if request.method == "POST" and form.is_valid():
        try:
            job = trial_run_start(collection=collection, file=form.cleaned_data["run"], created_by=request.user)
        except ValidationError as error:
            form.add_error("run", error.message_dict.get("run", error.messages))
        else:
            return redirect(f"{reverse('evaluation:trial', args=[collection.id])}?job={job.id}")
    job = None
    if request.GET.get("job", "").isdigit():
        job = Job.objects.filter(pk=request.GET["job"], created_by=request.user, collection=collection).first()
    result = TrialResult.from_dict(job.result) if job and job.state == JobState.DONE else None
    failed = job is not None and job.state == JobState.FAILED
    context = {"collection": collection, "form": form, "job": job, "result": result, "failed": failed}
    template = "evaluation/_trial_job.html" if request.htmx else "evaluation/trial.html"
    return render(request, template, context, status=400 if failed or form.errors else 200)
