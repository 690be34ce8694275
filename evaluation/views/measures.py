"""The list of measures, as a page: every family the engine computes, its parameters, its names in ir_measures'
and trec_eval's spelling, what it computes and the convention it follows (what `python -m evaluation
--list-measures` prints)."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from measures import FAMILIES

EXAMPLES = [
    ("nDCG@10", "ndcg_cut.10", "nDCG@10"),
    ("P@5", "P.5", "P@5"),
    ("AP", "map", "AP"),
    ("R@1000", "recall.1000", "R@1000"),
    ("RR", "recip_rank", "RR"),
    ("nDCG@5, nDCG@10", "ndcg_cut.5,10", "nDCG@5, nDCG@10"),
]


@login_required
def measure_list(request: HttpRequest) -> HttpResponse:
    families = [
        {
            "name": family.name,
            "params": ", ".join(f"{k}={v!r}" if isinstance(v, str) else f"{k}={v}" for k, v in family.params.items()),
            "cutoff": family.cutoff,
            "trec": family.trec_cut or family.trec,
            "doc": family.doc,
            "source": family.source,
        }
        for family in FAMILIES.values()
    ]
    return render(request, "evaluation/measures.html", {"families": families, "examples": EXAMPLES})
