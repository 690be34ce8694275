"""Reads and exports of a collection's preference judgments: the prefs file trec_eval reads (`-R prefs`), graded
qrels derived from the preferences by Bradley–Terry, and the runs' prefs_* measures for the leaderboard, computed
from the same lines the prefs file holds, so that the file run through `python -m evaluation -R prefs` gives the
leaderboard's values.

The prefs file: one judgment group per assessor and topic (one user's information need), one sub-group per
comparison: the better document at rel_level 2 and the other at 1, both at 1 when equally good; a document the
assessor called not relevant ("both not relevant") is at 0 wherever that assessor compared it. An assessor whose
answers contradict each other on a topic (a cycle, or a document both not relevant and better than another) would
make trec_eval stop; their comparisons of that topic are written one group each instead, and the provenance says so.
"""

from __future__ import annotations

from collections import defaultdict

from django.db.models import Count, Max

from evaluation.cached_reads import cached_for_version
from evaluation.files import export_name, provenance
from evaluation.selectors import results_version
from judging import selectors as judging_selectors
from judging.core import rankings as stored
from judging.models import Collection, Document, Ranking, Run, Topic
from judging.preferences import selectors as preferring
from judging.preferences.models import Preference, PreferenceHistory
from measures.bradley_terry import bradley_terry, grades_from_strengths
from measures.preferences import PrefLine, evaluate_prefs, summary, topic_prefs

LEADERBOARD_MEASURES = ["prefs_simp", "prefs_pair", "prefs_avgjg", "prefs_avgjg_Rnonrel", "prefs_num_prefs_poss"]
BRADLEY_TERRY = (
    "Bradley-Terry strengths (Hunter's MM; ties half a win; one prior game against a reference) from every "
    "assessor's comparisons per topic; documents called not relevant get 0, the others are cut by strength into "
    "equal groups, the strongest getting the top grade"
)


def _comparisons(collection: Collection):
    rows = Preference.objects.filter(topic__collection=collection).order_by("topic_id", "assessor_id", "id")
    return list(rows.values_list("topic_id", "assessor_id", "first_id", "second_id", "outcome"))


def _names(collection: Collection, reveal: bool, assessors: set[int]) -> dict[int, str]:
    names = judging_selectors.assessor_names(collection=collection, reveal=reveal)
    missing = sorted(assessors - set(names))
    for number, pk in enumerate(missing, start=len(names) + 1):  # compared but never graded
        names[pk] = f"assessor-{number}" if not reveal else judging_selectors.User.objects.get(pk=pk).username
    return names


def _group_lines(jg: str, rows: list[tuple[str, str, str]]) -> list[PrefLine]:
    nonrelevant = {d for first, second, outcome in rows if outcome == "neither" for d in (first, second)}
    lines = []
    for number, (first, second, outcome) in enumerate(rows, start=1):
        levels = {"first": (2.0, 1.0), "second": (1.0, 2.0), "equal": (1.0, 1.0), "neither": (0.0, 0.0)}[outcome]
        for docno, level in zip((first, second), levels, strict=True):
            lines.append(PrefLine(jg, f"c{number}", docno, 0.0 if docno in nonrelevant else level))
    return lines


def preference_lines(*, collection: Collection, reveal: bool) -> tuple[dict[str, list[PrefLine]], list[str]]:
    """({topic number: lines}, the assessor-topics written one group per comparison because they contradict
    themselves)."""
    rows = _comparisons(collection)
    names = _names(collection, reveal, {assessor for _, assessor, *_ in rows})
    numbers = dict(Topic.objects.filter(collection=collection).values_list("id", "number"))
    docnos = dict(Document.objects.filter(pk__in={d for row in rows for d in row[2:4]}).values_list("pk", "docno"))
    grouped: dict[tuple[int, int], list] = defaultdict(list)
    for topic, assessor, first, second, outcome in rows:
        grouped[(topic, assessor)].append((docnos[first], docnos[second], outcome))
    prefs: dict[str, list[PrefLine]] = defaultdict(list)
    split = []
    for (topic, assessor), comparisons in grouped.items():
        lines = _group_lines(names[assessor], comparisons)
        try:
            topic_prefs(lines, [])
        except ValueError:
            split.append(f"{names[assessor]} on topic {numbers[topic]}")
            lines = [
                line
                for number, row in enumerate(comparisons, start=1)
                for line in _group_lines(f"{names[assessor]}.{number}", [row])
            ]
        prefs[numbers[topic]].extend(lines)
    return dict(prefs), split


def prefs_file(*, collection: Collection, reveal: bool):
    """(file name, provenance, lines) of the prefs file."""
    prefs, split = preference_lines(collection=collection, reveal=reveal)
    meta = provenance(collection, kind="prefs", format="trec_eval -R prefs", split_into_one_group_each=split)
    text = [
        f"{topic} {line.jg} {line.jsg} {line.docno} {line.rel_level:g}\n"
        for topic in sorted(prefs)
        for line in prefs[topic]
    ]
    return export_name(collection, "prefs", meta["qrels_version"], "txt"), meta, iter(text)


def bradley_terry_qrels(*, collection: Collection) -> dict[str, dict[str, int]]:
    """{topic number: {docno: grade}} derived from every assessor's comparisons (`BRADLEY_TERRY`)."""
    games: dict[int, list] = defaultdict(list)
    nonrelevant: dict[int, set[int]] = defaultdict(set)
    for topic, _, first, second, outcome in _comparisons(collection):
        if outcome == "neither":
            nonrelevant[topic] |= {first, second}
            continue
        games[topic].append((first, second, {"first": 1.0, "second": 0.0, "equal": 0.5}[outcome]))
    topics = set(games) | set(nonrelevant)
    numbers = dict(Topic.objects.filter(pk__in=topics).values_list("id", "number"))
    qrels = {}
    for topic in topics:
        items = sorted({d for a, b, _ in games[topic] for d in (a, b)} | nonrelevant[topic])
        strengths = bradley_terry(items, games[topic])
        grades = grades_from_strengths(strengths, max_grade=collection.max_grade, nonrelevant=nonrelevant[topic])
        docnos = dict(Document.objects.filter(pk__in=items).values_list("pk", "docno"))
        qrels[numbers[topic]] = {docnos[d]: g for d, g in grades.items()}
    return qrels


def _run_scores(collection: Collection, topic_numbers: set[str]) -> dict[str, dict[str, dict[str, float]]]:
    """{run tag: {topic number: {docno: score}}} for the topics with preferences."""
    topics = dict(Topic.objects.filter(collection=collection, number__in=topic_numbers).values_list("id", "number"))
    tags = dict(Run.objects.filter(collection=collection).values_list("id", "tag"))
    rankings = list(Ranking.objects.filter(topic_id__in=topics).values_list("run_id", "topic_id", "document_ids",
                                                                            "scores"))  # fmt: skip
    ids = {int(d) for _, _, documents, _ in rankings for d in stored.ids_from_bytes(documents)}
    docnos = dict(Document.objects.filter(pk__in=ids).values_list("pk", "docno"))
    runs: dict[str, dict[str, dict[str, float]]] = {tag: {} for tag in tags.values()}
    for run, topic, documents, scores in rankings:
        ranked = stored.ids_from_bytes(documents).tolist()
        values = stored.scores_from_bytes(scores).tolist()
        runs[tags[run]][topics[topic]] = {docnos[d]: s for d, s in zip(ranked, values, strict=True)}
    return runs


def prefs_leaderboard(*, collection: Collection) -> dict:
    """Each run's prefs_* measures (the mean over topics with preferences, counts summed) from the prefs file's
    lines, with the topics counted and agreement between assessors on the pairs they share. Kept in the cache while
    the collection's results version and its preferences stand (every preference change adds a history row)."""
    changes = PreferenceHistory.objects.filter(topic__collection=collection).aggregate(
        count=Count("pk"), last=Max("pk")
    )
    key = f"prefs-board:{collection.pk}:{changes['count']}:{changes['last']}"
    return cached_for_version(key, results_version(collection=collection), lambda: _prefs_leaderboard(collection))


def _prefs_leaderboard(collection: Collection) -> dict:
    prefs, split = preference_lines(collection=collection, reveal=False)
    if not prefs:
        return {"measures": LEADERBOARD_MEASURES, "runs": {}, "rows": [], "topics": 0, "split": [], "agreement": None}
    runs = _run_scores(collection, set(prefs))
    table = {}
    for tag, run in sorted(runs.items()):
        values = evaluate_prefs(prefs, run)
        table[tag] = summary(values, LEADERBOARD_MEASURES) | {"topics": len(values)}
    topic_ids = list(Topic.objects.filter(collection=collection, number__in=prefs).values_list("id", flat=True))
    return {
        "measures": LEADERBOARD_MEASURES,
        "runs": table,
        "rows": [
            {"run": tag, "values": [row[m] for m in LEADERBOARD_MEASURES], "topics": row["topics"]}
            for tag, row in table.items()
        ],
        "topics": len(prefs),
        "split": split,
        "agreement": preferring.preference_agreement(topic_ids=topic_ids),
    }
