"""Results pages: a sortable leaderboard with judged@10, a run's page, two runs compared (numbers checked against scipy
and statsmodels), curves checked against trec_eval, agreement matrices against scikit-learn, and every plot drawn."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest
import pytrec_eval
from django.db import connection
from django.test.utils import CaptureQueriesContext
from scipy import stats
from sklearn.metrics import cohen_kappa_score
from statsmodels.stats.multitest import multipletests

from evaluation import selectors as evaluation_selectors
from evaluation.analysis import selectors as analysis
from evaluation.analysis.core import curves
from judging.models import Judgment
from tests.factories import make_user, stored_aggregates, stored_values

pytestmark = pytest.mark.django_db(transaction=True)


def _client_as(client, role):
    client.force_login(make_user(role))
    return client


def _page(client, url, **params) -> str:
    response = client.get(url, params)
    assert response.status_code == 200, response.content[:500]
    return response.content.decode()


def _qrels_and_runs(collection):
    """The consensus qrels and every run, keyed by topic number and docno, as pytrec_eval takes them."""
    docnos = dict(collection.documents.values_list("id", "docno"))
    numbers = dict(collection.topics.values_list("id", "number"))
    qrels = {
        numbers[t]: {docnos[d]: g for d, g in labels.items()}
        for t, labels in evaluation_selectors.consensus_qrels(collection=collection).items()
    }
    runs = {
        run.tag: {
            r.topic.number: {docnos[d]: float(s) for d, s in zip(r.documents(), r.score_array(), strict=True)}
            for r in run.rankings.select_related("topic")
        }
        for run in collection.runs.all()
    }
    return qrels, runs


def test_leaderboard_sorts_by_a_measure_both_ways_and_shows_judged_at_10(client, judged):
    collection, _, _ = judged
    url = f"/results/{collection.id}/"
    client = _client_as(client, "researcher")
    tags = dict(collection.runs.values_list("id", "tag"))
    stored = {tags[run_id]: value for (run_id, _), (value, _) in stored_aggregates(collection, ["AP"]).items()}
    best_first = sorted(stored, key=lambda tag: -stored[tag])
    page = _page(client, url, sort="AP", order="desc")
    assert [page.index(f'data-run="{tag}"') for tag in best_first] == sorted(
        page.index(f'data-run="{tag}"') for tag in best_first
    )
    page = _page(client, url, sort="AP", order="asc")
    positions = [page.index(f'data-run="{tag}"') for tag in reversed(best_first)]
    assert positions == sorted(positions)
    assert 'aria-sort="ascending"' in page and "Judged@10" in page
    assert client.get(url, {"sort": "nonsense"}).status_code == 400


def test_judged_at_10_is_the_share_of_each_runs_top_10_in_the_qrels(judged):
    # Judged@k: the share of the top min(k, n) documents that appear in the qrels (the engine's, the one column).
    collection, _, _ = judged
    from evaluation import selectors

    qrels = evaluation_selectors.consensus_qrels(collection=collection)
    rows = selectors.leaderboard(collection=collection, measures=["AP"])
    for row in rows:
        shares = [
            sum(int(d) in qrels.get(r.topic_id, {}) for d in r.documents()[:10]) / min(10, len(r.documents()))
            for r in row["run"].rankings.all()
        ]
        assert row["judged"] == pytest.approx(np.mean(shares))
        assert row["topics"] == 3


def test_the_leaderboard_reads_a_fixed_number_of_queries(client, judged):
    collection, _, _ = judged
    client = _client_as(client, "researcher")
    with CaptureQueriesContext(connection) as queries:
        _page(client, f"/results/{collection.id}/", sort="AP")
    assert len(queries) <= 16  # with the machine judges' gullibility flags


def test_assessors_cannot_open_results_pages(client, judged):
    collection, _, _ = judged
    client = _client_as(client, "assessor")
    run = collection.runs.first()
    for url in (
        f"/results/{collection.id}/",
        f"/results/{collection.id}/runs/{run.id}/",
        f"/results/{collection.id}/curves/",
        f"/results/{collection.id}/agreement/",
        f"/results/{collection.id}/plots/topics.svg?run={run.id}",
    ):
        assert client.get(url).status_code == 403, url


def test_run_page_lists_each_topics_stored_value_and_its_plots(client, judged):
    collection, _, _ = judged
    run = collection.runs.order_by("tag").first()
    page = _page(_client_as(client, "researcher"), f"/results/{collection.id}/runs/{run.id}/", measure="nDCG")
    numbers = dict(collection.topics.values_list("id", "number"))
    for (run_id, topic_id, _), value in stored_values(collection, ["nDCG"]).items():
        if run_id != run.id:
            continue
        number = numbers[topic_id]
        assert f'<td>{number}</td><td class="num">{value:.4f}</td>' in page
    for name in ("topics", "histogram", "precision-recall", "roc"):
        assert f'data-plot="{name}"' in page


def test_comparison_matches_scipy_and_holm_matches_statsmodels(client, judged):
    collection, _, _ = judged
    runs = list(collection.runs.order_by("tag"))
    a, b = runs[0], runs[1]
    found = analysis.runs_compare(collection=collection, a=a, b=b, measure="AP")
    stored = stored_values(collection, ["AP"])
    values = {run.tag: {t: v for (r, t, _), v in stored.items() if r == run.id} for run in runs}
    shared = sorted(set(values[a.tag]) & set(values[b.tag]))
    first, second = [values[a.tag][t] for t in shared], [values[b.tag][t] for t in shared]
    expected = stats.ttest_rel(first, second)
    assert found.result.topics == len(shared) == 3
    assert found.result.mean_difference == pytest.approx(np.mean(first) - np.mean(second), abs=1e-15)
    assert found.result.t_p_value == pytest.approx(expected.pvalue, rel=1e-9)
    assert [t.difference for t in found.topics] == pytest.approx([x - y for x, y in zip(first, second, strict=True)])
    pairs = analysis.all_pairs(collection=collection, measure="AP")
    raw = [stats.ttest_rel([values[p.a][t] for t in shared], [values[p.b][t] for t in shared]).pvalue for p in pairs]
    assert [p.t_p_value for p in pairs] == pytest.approx(raw, rel=1e-9)
    assert [p.holm_p_value for p in pairs] == pytest.approx(list(multipletests(raw, method="holm")[1]), rel=1e-9)
    page = _page(_client_as(client, "researcher"), f"/results/{collection.id}/compare/", a=a.id, b=b.id, measure="AP")
    assert f"{found.result.t_p_value:.4f}" in page and f"{found.holm_p_value:.4f}" in page
    assert 'id="all-pairs"' in page and page.count("<tr><td>run") == len(pairs) == 3


def test_comparing_a_run_with_itself_or_an_unknown_run_is_a_clear_400(client, judged):
    collection, _, _ = judged
    run = collection.runs.first()
    client = _client_as(client, "researcher")
    url = f"/results/{collection.id}/compare/"
    assert client.get(url, {"a": run.id, "b": run.id}).status_code == 400
    response = client.get(url, {"a": run.id, "b": 999999})
    assert response.status_code == 400


def test_precision_recall_curve_is_trec_evals_iprec_at_recall_in_the_collections_version(judged):
    collection, _, _ = judged
    collection.trec_eval_version = 9  # pytrec_eval bundles 9.0.x
    collection.save(update_fields=["trec_eval_version"])
    qrels, runs = _qrels_and_runs(collection)
    names = {f"iprec_at_recall_{level:.2f}" for level in curves.RECALL_LEVELS}
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, {"iprec_at_recall"}, relevance_level=1)
    found = analysis.precision_recall(collection=collection, runs=list(collection.runs.all()))
    for tag, per_topic in runs.items():
        result = evaluator.evaluate(per_topic)
        expected = [
            np.mean([result[t][f"iprec_at_recall_{level:.2f}"] for t in result]) for level in curves.RECALL_LEVELS
        ]
        assert found[tag] == pytest.approx(expected, abs=1e-12), tag
    assert len(names) == 11


def test_roc_curve_averages_recall_and_judged_fallout_rank_by_rank():
    # Topic 1: ranked R, N, unjudged, R with 2 relevant and 2 judged non-relevant in the qrels.
    # Topic 2: ranked N, R with 1 relevant and 1 judged non-relevant.
    found = curves.roc_curve(
        [
            curves.TopicLabels(np.array([2, 0, -1, 1]), relevant=2, nonrelevant=2),
            curves.TopicLabels(np.array([0, 3]), relevant=1, nonrelevant=1),
        ]
    )
    assert found.true_positive_rate.tolist() == pytest.approx([0, 0.25, 0.75, 0.75, 1.0])
    assert found.false_positive_rate.tolist() == pytest.approx([0, 0.5, 0.75, 0.75, 0.75])
    assert found.topics == 2
    x, y = found.false_positive_rate, found.true_positive_rate
    assert found.partial_auc == pytest.approx(np.trapezoid(y, x))


def test_roc_leaves_out_topics_without_both_kinds_of_judgment():
    found = curves.roc_curve([curves.TopicLabels(np.array([1, 1]), relevant=2, nonrelevant=0)])
    assert found.topics == 0 and found.partial_auc == 0.0


def test_agreement_kappas_match_scikit_learn_and_hide_identities_from_researchers(client, judged):
    collection, a, b = judged
    found = analysis.agreement_matrices(collection=collection, reveal=True)
    assert found.names == [a.username, b.username]
    labels = {}
    for assessor, topic, document, grade in Judgment.objects.filter(topic__collection=collection).values_list(
        "assessor_id", "topic_id", "document_id", "grade"
    ):
        labels.setdefault((topic, document), {})[assessor] = grade
    both = [(v[a.id], v[b.id]) for v in labels.values() if a.id in v and b.id in v]
    expected = cohen_kappa_score([x for x, _ in both], [y for _, y in both], labels=[0, 1, 2, 3])
    assert found.kappa[0][1] == pytest.approx(expected, abs=1e-12)
    confusion = np.array(found.confusion[(a.username, b.username)])
    assert confusion.sum() == len(both) and confusion.shape == (4, 4)
    hidden = analysis.agreement_matrices(collection=collection, reveal=False)
    assert hidden.names == ["assessor-1", "assessor-2"]
    page = _page(_client_as(client, "researcher"), f"/results/{collection.id}/agreement/")
    assert a.username not in page and "assessor-1" in page


def test_the_agreement_page_says_whether_each_assessors_labels_would_reorder_the_leaderboard(client, judged):
    from evaluation.models import AgreementReport

    collection, a, b = judged
    stored = AgreementReport.objects.get(collection=collection, topic__isnull=True).report["system_ranking"]
    against = stored["against_consensus"]
    assert set(against) == {str(a.id), str(b.id)}
    found = analysis.agreement_matrices(collection=collection, reveal=True)
    assert found.ranking_measure == stored["measure"] == "AP"
    assert found.ranking == sorted(
        (user.username, against[str(user.id)]["kendall_tau"], against[str(user.id)]["tau_ap"]) for user in (a, b)
    )
    # Each assessor's tau as scipy computes it from the stored scores of the runs under their labels.
    consensus = stored["scores"]["consensus"]
    for user in (a, b):
        mine = stored["scores"][str(user.id)]
        expected = stats.kendalltau([consensus[t] for t in consensus], [mine[t] for t in consensus]).statistic
        assert against[str(user.id)]["kendall_tau"] == pytest.approx(expected, abs=1e-12, nan_ok=True) or (
            against[str(user.id)]["kendall_tau"] is None and math.isnan(expected)
        )
    researcher = _client_as(client, "researcher")
    page = _page(researcher, f"/results/{collection.id}/agreement/")
    assert 'id="ranking-agreement"' in page and 'data-assessor="assessor-1"' in page and a.username not in page
    api = researcher.get(f"/api/collections/{collection.id}/agreement/").json()
    hidden = analysis.agreement_matrices(collection=collection, reveal=False)
    assert api["ranking_measure"] == "AP"
    assert [(r["assessor"], r["kendall_tau"], r["tau_ap"]) for r in api["ranking"]] == hidden.ranking
    assert {r["assessor"] for r in api["ranking"]} == {"assessor-1", "assessor-2"}


PLOTS = {
    "precision-recall": lambda c, runs, names: {"runs": [r.id for r in runs]},
    "roc": lambda c, runs, names: {"runs": [r.id for r in runs]},
    "topics": lambda c, runs, names: {"run": runs[0].id, "measure": "AP"},
    "histogram": lambda c, runs, names: {"run": runs[0].id, "measure": "nDCG"},
    "differences": lambda c, runs, names: {"a": runs[0].id, "b": runs[1].id, "measure": "AP"},
    "kappa": lambda c, runs, names: {},
    "confusion": lambda c, runs, names: {"row": names[0], "column": "consensus"},
}


def test_every_plot_renders_as_svg_and_png_and_downloads(client, judged):
    # One collection for every plot (built once: the plots only read it).
    collection, _, _ = judged
    runs = list(collection.runs.order_by("tag"))
    client = _client_as(client, "researcher")
    for name, params in PLOTS.items():
        query = params(collection, runs, ["assessor-1"])
        svg = client.get(f"/results/{collection.id}/plots/{name}.svg", query)
        assert svg.status_code == 200, (name, svg.content[:300])
        assert svg["Content-Type"] == "image/svg+xml" and b"<svg" in svg.content[:500], name
        png = client.get(f"/results/{collection.id}/plots/{name}.png", query | {"download": 1})
        assert png.content[:8] == b"\x89PNG\r\n\x1a\n", name
        assert png["Content-Disposition"] == f'attachment; filename="{collection.name}-{name}.png"'  # a plain name


def test_plots_refuse_bad_parameters_with_a_400_naming_them(client, judged):
    collection, _, _ = judged
    client = _client_as(client, "researcher")
    base = f"/results/{collection.id}/plots"
    for url, params, words in (
        (f"{base}/topics.svg", {"run": "x"}, "run: no run &#x27;x&#x27;"),
        (f"{base}/topics.svg", {"run": collection.runs.first().id, "measure": "nope"}, "is not computed"),
        (f"{base}/nothing.svg", {}, "no plot"),
        (f"{base}/roc.gif", {}, "format must be"),
        (f"{base}/confusion.svg", {"row": "x", "column": "y"}, "no confusion matrix"),
    ):
        response = client.get(url, params)
        assert response.status_code == 400, url
        assert words in response.content.decode(), (url, response.content[:300])


def test_plots_are_the_same_bytes_for_the_same_data(client, judged):
    collection, _, _ = judged
    run = collection.runs.first()
    client = _client_as(client, "researcher")
    url = f"/results/{collection.id}/plots/histogram.svg"
    assert client.get(url, {"run": run.id}).content == client.get(url, {"run": run.id}).content


def test_an_undefined_value_is_a_gap_not_a_zero():
    from evaluation.analysis.core import plots

    figure = plots.topic_bars(["1", "2"], [0.5, None], ylabel="AP", title="t")
    heights = [patch.get_height() for patch in figure.axes[0].patches]
    assert heights[0] == 0.5 and math.isnan(heights[1])


def test_plots_draw_run_tags_and_names_with_dollar_signs_as_plain_text(client):
    from judging import services as judging_services
    from tests.factories import make_collection

    collection = make_collection(topics=2, runs=2)
    collection.runs.filter(tag="run0").update(tag="$\\frac{unclosed$")
    judging_services.collection_settings_update(collection=collection, name='quote " and\r\nbreak')
    client = _client_as(client, "researcher")
    runs = list(collection.runs.order_by("tag"))
    for name, query in (
        ("precision-recall", {"runs": [r.id for r in runs]}),
        ("differences", {"a": runs[0].id, "b": runs[1].id, "measure": "AP"}),
    ):
        response = client.get(f"/results/{collection.id}/plots/{name}.png", {**query, "download": 1})
        assert response.status_code == 200, response.content[:300]
        assert response["Content-Disposition"] == f'attachment; filename="quote-and-break-{name}.png"'


def test_pseudonyms_stay_the_same_when_another_assessor_judges():
    from judging import selectors as judging_selectors
    from judging import services as judging_services
    from tests.factories import make_collection, make_user

    collection = make_collection(topics=1, runs=1)
    topic = collection.topics.get()
    late, early = make_user("assessor"), make_user("assessor")  # the later account judges first
    items = list(topic.pool_items.all())
    for person in (late, early):
        judging_services.assignment_create(assessor=person, topic=topic)
    judging_services.judgment_record(assessor=early, topic=topic, document=items[0].document, grade=1)
    before = judging_selectors.assessor_names(collection=collection, reveal=False)
    judging_services.judgment_record(assessor=late, topic=topic, document=items[1].document, grade=0)
    after = judging_selectors.assessor_names(collection=collection, reveal=False)
    assert before == {early.id: "assessor-1"}
    assert after == {early.id: "assessor-1", late.id: "assessor-2"}


def test_the_leaderboard_has_one_judged_at_10_column_and_sorts_by_the_first_measure_by_default(client, judged):
    collection, _, _ = judged
    collection.measures = ["AP", "Judged@10", "P@5"]
    collection.save(update_fields=["measures"])
    page = _page(_client_as(client, "researcher"), f"/results/{collection.id}/")
    assert page.count('data-sort="judged"') == 1 and 'data-sort="Judged@10"' not in page
    assert '<th class="num" aria-sort="descending"><a href="?sort=AP&amp;order=asc" data-sort="AP">' in page


def test_comparing_other_than_two_ticked_runs_says_so_on_the_leaderboard(client, judged):
    collection, _, _ = judged
    client = _client_as(client, "researcher")
    for ticked in (0, 1, 3):
        runs = [r.id for r in collection.runs.order_by("id")][:ticked]
        response = client.get(
            f"/results/{collection.id}/compare/",
            {"runs": runs, "measure": "AP"} if runs else {"measure": "AP"},
            follow=True,
        )
        assert response.status_code == 200, ticked
        assert "Tick exactly two runs" in response.content.decode(), ticked


def test_the_agreement_page_shows_confusion_matrices_as_tables_and_draws_no_image_per_pair(client, judged):
    """92 confusion images a request took 9.2 s and slowed every save beside it; the counts are a table."""
    collection, _, _ = judged
    page = _page(_client_as(client, "researcher"), f"/results/{collection.id}/agreement/")
    matrices = analysis.agreement_matrices(collection=collection, reveal=False)
    assert len(matrices.confusion) >= 2
    assert page.count('data-plot="confusion"') == 0 and page.count("data-confusion=") == len(matrices.confusion)
    row, column = sorted(matrices.confusion)[0]
    total = int(np.array(matrices.confusion[row, column]).sum())
    figure = page.split(f'data-confusion="{row} vs {column}"', 1)[1].split("</figure>", 1)[0]
    cells = [int(v) for v in re.findall(r'<td class="num">(\d+)</td>', figure)]
    assert sum(cells) == total > 0 and len(cells) == len(matrices.categories) ** 2


def test_two_runs_sharing_one_topic_show_no_test_and_say_two_topics_are_needed(client):
    from evaluation import services as evaluation_services
    from judging import services
    from tests.factories import make_collection

    collection = make_collection(max_grade=1, topics=3, documents=8, runs=2, depth=4)
    topic = collection.topics.order_by("id").first()
    person = make_user()
    services.assignment_create(assessor=person, topic=topic)
    for item, grade in zip(topic.pool_items.order_by("id"), (1, 0, 1), strict=False):
        services.judgment_record(assessor=person, topic=topic, document=item.document, grade=grade)
    evaluation_services.collection_recompute(collection_id=collection.id)
    a, b = collection.runs.order_by("tag")
    found = analysis.runs_compare(collection=collection, a=a, b=b, measure="AP")
    assert found.result.topics == 1
    assert all(math.isnan(v) for v in (found.result.ci_low, found.result.ci_high, found.result.permutation_p_value))
    page = _page(_client_as(client, "researcher"), f"/results/{collection.id}/compare/", a=a.id, b=b.id, measure="AP")
    # "nan" as a word: a random CSRF token may hold the letters (one did, and failed this test by chance).
    assert not re.search(r"\bnan\b", page, re.IGNORECASE), "a value shown as nan"
    assert "data-too-few-topics" in page and "needs at least 2 topics" in page
    api = client.get(f"/api/collections/{collection.id}/compare/", {"a": a.tag, "b": b.tag, "measure": "AP"}).json()
    assert api["bootstrap_ci_95"] == [None, None] and api["t_p_value"] is None
