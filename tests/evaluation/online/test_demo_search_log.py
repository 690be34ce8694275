"""The demo comes with a search log whose online page has values from the start: two arms serving two runs, clicks
that follow the demo's judgments, and an online/offline correlation for each arm."""

import pytest
from django.core.management import call_command

from evaluation.online import selectors as online_selectors
from evaluation.online.models import SearchLog

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]  # recomputes run on commit


def test_the_demo_loads_a_search_log_with_two_arms_and_their_runs(settings, capsys):
    settings.DEBUG = True
    call_command("demo", no_serve=True)
    log = SearchLog.objects.get(name="demo traffic")
    figures = online_selectors.search_log_figures(search_log=log)
    assert sorted(figures["arms"]) == ["bm25", "tfidf"]
    assert figures["overall"]["sessions"] == 3000
    assert 0 < figures["overall"]["query_ctr"] < 1 and figures["overall"]["zero_result_rate"] > 0
    assert figures["ab"]["control"] == "bm25"
    rows = online_selectors.online_offline(search_log=log)
    assert [(r["arm"], r["run"]) for r in rows] == [("bm25", "bm25"), ("tfidf", "tfidf")]
    assert all(r["queries"] >= 5 for r in rows)
    assert "a search log of" in capsys.readouterr().out
