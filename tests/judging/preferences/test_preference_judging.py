"""Preference judging in the app: the tournament finds an assessor's top k with few comparisons, comparisons go
through the one write path with history, the comparison page works without JavaScript, and the exports agree with
the leaderboard: the prefs file run through `python -m evaluation -R prefs` gives the leaderboard's prefs_* values."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest
from django.core.exceptions import PermissionDenied, ValidationError

from evaluation import services as evaluation_services
from evaluation.cli.trec_eval import main
from evaluation.preferences import selectors as preference_results
from judging import services
from judging.models import Document, PoolItem, Ranking, Topic
from judging.preferences import core as tournament
from judging.preferences import selectors as preferring
from judging.preferences import services as preferences
from judging.preferences.models import Preference, PreferenceHistory
from judging.quality.models import AssessorPause
from measures.bradley_terry import bradley_terry, grades_from_strengths
from tests.factories import make_collection, make_user

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("seed", range(30))
def test_the_tournament_finds_the_true_top_k_in_few_comparisons(seed):
    rng = random.Random(seed)
    n, k = rng.randint(2, 20), rng.randint(1, 5)
    candidates = list(range(n))
    truth = {c: rng.random() for c in candidates}  # the assessor's hidden opinion
    known, asked = {}, 0
    while True:
        now = tournament.standing(candidates, known, k)
        if now.next_pair is None:
            break
        a, b = now.next_pair
        known[frozenset((a, b))] = a if truth[a] > truth[b] else b
        asked += 1
    assert now.top == sorted(candidates, key=lambda c: -truth[c])[: min(k, n)]
    assert asked <= (n - 1) + (min(k, n) - 1) * math.ceil(math.log2(n))
    assert now.left == 0


def test_the_estimate_of_comparisons_left_is_exact_when_the_priors_hold():
    candidates, known = list(range(8)), {}
    first = tournament.standing(candidates, known, 3)
    asked = 0
    while (now := tournament.standing(candidates, known, 3)).next_pair is not None:
        known[frozenset(now.next_pair)] = now.next_pair[0]  # the better prior always wins
        asked += 1
    # 7 to find the best; replayed without it, 1 meets 2 then 4 (2 new); without both, 2 meets 4 (1 new).
    assert first.left == asked == 7 + 2 + 1


def test_ties_send_the_better_prior_on():
    known = {frozenset((0, 1)): None}
    assert tournament.standing([0, 1], known, 1).top == [0]


@pytest.fixture
def campaign():
    collection = make_collection(max_grade=3, topics=1, documents=8, runs=3, depth=8, judging_mode="preferences",
                                 preference_candidates=6, preference_top=2)  # fmt: skip
    topic = Topic.objects.get(collection=collection)
    ann, bob = make_user("assessor"), make_user("assessor")
    for person in (ann, bob):
        services.assignment_create(assessor=person, topic=topic)
    documents = {d.docno: d for d in Document.objects.filter(collection=collection)}
    return collection, topic, ann, bob, documents


def test_a_comparison_is_kept_in_one_order_with_its_history(campaign):
    _, topic, ann, _, docs = campaign
    low, high = sorted((docs["d1"], docs["d2"]), key=lambda d: d.pk)
    preferences.preference_record(assessor=ann, topic=topic, documents=(high, low), answer="better", better=high)
    stored = Preference.objects.get(assessor=ann)
    assert (stored.first_id, stored.second_id, stored.outcome) == (low.pk, high.pk, "second")
    preferences.preference_record(assessor=ann, topic=topic, documents=(low, high), answer="equal")
    assert Preference.objects.get(assessor=ann).outcome == "equal"
    assert list(PreferenceHistory.objects.order_by("id").values_list("old_outcome", "new_outcome")) == [
        ("", "second"), ("second", "equal")]  # fmt: skip


def test_a_comparison_is_refused_when_it_cannot_be_right(campaign):
    collection, topic, ann, _, docs = campaign
    stranger = make_user("assessor")
    pair = (docs["d1"], docs["d2"])
    with pytest.raises(PermissionDenied, match="not assigned"):
        preferences.preference_record(assessor=stranger, topic=topic, documents=pair, answer="equal")
    with pytest.raises(ValidationError, match="better"):
        preferences.preference_record(assessor=ann, topic=topic, documents=pair, answer="better", better=docs["d3"])
    with pytest.raises(ValidationError, match="itself"):
        preferences.preference_record(assessor=ann, topic=topic, documents=(docs["d1"], docs["d1"]), answer="equal")
    PoolItem.objects.filter(topic=topic, document=docs["d3"]).delete()
    with pytest.raises(PermissionDenied, match="pool"):
        preferences.preference_record(assessor=ann, topic=topic, documents=(docs["d1"], docs["d3"]), answer="equal")
    services.collection_settings_update(collection=collection, pause_below=0.5)
    topic.refresh_from_db()
    AssessorPause.objects.create(collection=collection, assessor=ann, reason="test")
    with pytest.raises(PermissionDenied, match="paused"):
        preferences.preference_record(assessor=ann, topic=topic, documents=pair, answer="equal")
    assert not Preference.objects.exists()


def _compare_all(client, topic, better) -> int:
    """Answers the comparison page until the tournament is complete; returns how many comparisons it asked."""
    for asked in range(100):
        page = client.get(f"/judging/compare/{topic.id}/").content.decode()
        if "Tournament complete" in page:
            return asked
        left = int(page.split('name="left" value="')[1].split('"')[0])
        right = int(page.split('name="right" value="')[1].split('"')[0])
        answer = better(Document.objects.get(pk=left).docno, Document.objects.get(pk=right).docno)
        response = client.post(f"/judging/compare/{topic.id}/save/", {"left": left, "right": right, "answer": answer})
        assert response.status_code == 302
    raise AssertionError("the tournament never ended")


def by_number(left: str, right: str) -> str:
    """An assessor for whom a higher docno number is better."""
    return "left" if int(left[1:]) > int(right[1:]) else "right"


def test_the_comparison_page_runs_the_tournament_without_javascript(campaign, client):
    _, topic, ann, _, _ = campaign
    client.force_login(ann)
    assert "Compare" in client.get("/judging/assignments/").content.decode()
    first = client.get(f"/judging/compare/{topic.id}/").content.decode()
    assert "About 7 comparisons left" in first and 'aria-label="Left document"' in first  # 5 for the best, 2 more
    asked = _compare_all(client, topic, by_number)
    page = client.get(f"/judging/compare/{topic.id}/").content.decode()
    candidates = preferring.candidates(topic=topic)
    best = sorted((Document.objects.get(pk=c).docno for c in candidates), key=lambda d: -int(d[1:]))[:2]
    assert f"<li>{best[0]}</li><li>{best[1]}</li>" in page.replace("\n", "")
    assert asked <= 5 + 3
    client.post(f"/judging/compare/{topic.id}/save/", {"undo": "1"})
    assert Preference.objects.filter(assessor=ann).count() == asked - 1
    assert "Tournament complete" not in client.get(f"/judging/compare/{topic.id}/").content.decode()


def _run_files(collection, folder) -> list:
    paths = []
    docnos = dict(Document.objects.filter(collection=collection).values_list("pk", "docno"))
    for ranking in Ranking.objects.filter(run__collection=collection).select_related("run", "topic"):
        path = folder / f"{ranking.run.tag}.txt"
        ids = np.frombuffer(bytes(ranking.document_ids), dtype="<i8")
        scores = np.frombuffer(bytes(ranking.scores), dtype="<f8")
        with path.open("a") as out:
            for rank, (d, s) in enumerate(zip(ids, scores, strict=True), start=1):
                out.write(f"{ranking.topic.number} Q0 {docnos[int(d)]} {rank} {float(s)!r} {ranking.run.tag}\n")
        paths.append(path)
    return sorted(set(paths))


def test_the_prefs_file_through_the_command_gives_the_leaderboards_values(campaign, client, tmp_path, capsys):
    collection, topic, ann, bob, _ = campaign
    for person, better in ((ann, by_number), (bob, lambda left, right: "left")):  # bob always says left
        client.force_login(person)
        _compare_all(client, topic, better)
    board = preference_results.prefs_leaderboard(collection=collection)
    assert board["agreement"]["shared_pairs"] >= 1
    # Which side each document is shown on follows the accounts' ids, so now and then every shared pair gets the
    # same answer from both: alpha is then undefined, and only then.
    shared = [labels for labels in preferring.preference_items(topic_ids=[topic.id]).values() if len(labels) >= 2]
    one_answer = len({outcome for labels in shared for outcome in labels.values()}) == 1
    assert (board["agreement"]["alpha"] is None) == one_answer
    client.force_login(make_user("researcher"))
    prefs = tmp_path / "prefs.txt"
    prefs.write_bytes(b"".join(client.get(f"/results/{collection.id}/prefs/").streaming_content))
    for run_file in _run_files(collection, tmp_path):
        assert main(["-R", "prefs", "-m", "all_prefs", str(prefs), str(run_file)]) == 0
        printed = dict(line.split("\tall\t") for line in capsys.readouterr().out.splitlines())
        tag = run_file.stem
        for measure in preference_results.LEADERBOARD_MEASURES:
            value = board["runs"][tag][measure]
            expected = str(round(value)) if measure == "prefs_num_prefs_poss" else f"{value:6.4f}"
            assert printed[f"{measure:<22}"] == expected, (tag, measure)
    card = client.get(f"/results/{collection.id}/preferences/").content.decode()
    assert 'id="preferences-table"' in card and "prefs_simp" in card


def test_graded_qrels_from_preferences_follow_the_bradley_terry_order(campaign, client):
    collection, topic, ann, _, _ = campaign
    client.force_login(ann)
    _compare_all(client, topic, by_number)
    qrels = preference_results.bradley_terry_qrels(collection=collection)[topic.number]
    champion = Document.objects.get(pk=preferring.standing(assessor_id=ann.id, topic=topic).top[0]).docno
    assert qrels[champion] == 3 == max(qrels.values())  # a knockout's winner beat everyone it met
    losers = {Document.objects.get(pk=p.first_id if p.outcome == "second" else p.second_id).docno
              for p in Preference.objects.filter(assessor=ann)}  # fmt: skip
    never_won = losers - {Document.objects.get(pk=p.first_id if p.outcome == "first" else p.second_id).docno
                          for p in Preference.objects.filter(assessor=ann)}  # fmt: skip
    assert all(qrels[d] <= min(qrels[w] for w in set(qrels) - never_won) for d in never_won)
    client.force_login(make_user("researcher"))
    text = b"".join(client.get(f"/results/{collection.id}/qrels/?source=preferences").streaming_content).decode()
    assert {line.split()[2]: int(line.split()[3]) for line in text.splitlines()} == qrels


def test_bradley_terry_recovers_an_order_and_cuts_it_into_grades():
    strengths = bradley_terry(["a", "b", "c"], [("a", "b", 1.0), ("b", "c", 1.0), ("a", "c", 1.0), ("b", "c", 0.5)])
    assert strengths["a"] > strengths["b"] > strengths["c"]
    assert math.isclose(math.prod(strengths.values()), 1.0)
    assert grades_from_strengths(strengths, max_grade=2, nonrelevant={"c"}) == {"a": 2, "b": 1, "c": 0}


def test_the_preferences_card_is_kept_until_a_preference_changes(campaign, client, monkeypatch):
    collection, topic, ann, bob, _ = campaign
    client.force_login(ann)
    _compare_all(client, topic, by_number)
    evaluation_services.collection_recompute(collection_id=collection.id)  # results up to date: a version to key by
    computed, compute = [], preference_results._prefs_leaderboard
    monkeypatch.setattr(preference_results, "_prefs_leaderboard", lambda c: computed.append(c.pk) or compute(c))
    first = preference_results.prefs_leaderboard(collection=collection)
    assert preference_results.prefs_leaderboard(collection=collection) == first and len(computed) == 1
    client.force_login(bob)
    _compare_all(client, topic, lambda left, right: "left")
    second = preference_results.prefs_leaderboard(collection=collection)
    assert len(computed) == 2 and first["agreement"]["shared_pairs"] == 0 < second["agreement"]["shared_pairs"]
    preferences.preference_delete(preference=Preference.objects.filter(assessor=bob).first(), changed_by=bob)
    assert preference_results.prefs_leaderboard(collection=collection)["agreement"] != second["agreement"]
