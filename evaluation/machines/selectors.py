"""Reads behind the machine judges' results page and API: each machine judge measured against the people (every
person, and the consensus), its error rates on verified items, the leaderboard with holes filled by its labels and
the per-run difference, and the stability of that leaderboard under plausible corrections. The figures come from
the pure functions of `machine_verification`, `agreement` and `ranking_agreement`; computed on demand from the
labels, and kept in the cache for as long as the collection's results version stands (never while stale)."""

from __future__ import annotations

from collections import defaultdict

from evaluation import ranking_cache
from evaluation.cached_reads import cached_for_version
from evaluation.machines import core as verify
from evaluation.selectors import consensus_labels, engine_options, results_version, stored_measures
from judging import selectors as judging_selectors
from judging.machines import selectors as machine_selectors
from judging.machines.models import MachineJudge, MachineReply
from judging.models import Collection, PoolItem, Topic
from judging.sources import selectors as sources
from measures.ranking_agreement import system_ranking_agreement


def machine_judges(*, collection: Collection) -> list[MachineJudge]:
    return list(MachineJudge.objects.filter(collection=collection).select_related("account").order_by("name"))


def judge_reply_counts(*, judge: MachineJudge) -> dict:
    """Under the judge's current configuration: pairs answered, failed, and tokens spent."""
    replies = MachineReply.objects.filter(judge=judge, configuration=judge.configuration)
    labelled = failed = prompt = completion = 0
    for failure, p, c in replies.values_list("failure", "prompt_tokens", "completion_tokens"):
        failed += bool(failure)
        labelled += not failure
        prompt, completion = prompt + p, completion + c
    return {"labelled": labelled, "failed": failed, "tokens": prompt + completion}


def _inputs(collection: Collection):
    judgments = judging_selectors.collection_judgments(collection_id=collection.id)  # topic -> doc -> who -> grade
    consensus = {topic: c.labels for topic, c in consensus_labels(collection=collection).items() if c.labels}
    pooled: dict[int, list[int]] = defaultdict(list)
    for topic_id, document_id in PoolItem.objects.filter(topic__collection=collection).values_list(
        "topic_id", "document_id"
    ):
        pooled[topic_id].append(document_id)
    return judgments, consensus, dict(pooled)


def _own(judgments, assessor_id: int) -> dict[int, dict[int, int]]:
    labels: dict[int, dict[int, int]] = defaultdict(dict)
    for topic, documents in judgments.items():
        for document, grades in documents.items():
            if assessor_id in grades:
                labels[topic][document] = grades[assessor_id]
    return dict(labels)


def _pairs(mine, theirs) -> list[tuple[int, int]]:
    return [(grade, theirs[t][d]) for t, docs in mine.items() for d, grade in docs.items() if d in theirs.get(t, {})]


def _pairs_by_topic(mine, theirs, collection) -> dict[str, list[tuple[int, int]]]:
    numbers = dict(Topic.objects.filter(collection=collection).values_list("id", "number"))
    found: dict[str, list[tuple[int, int]]] = {}
    for topic, documents in mine.items():
        pairs = [(grade, theirs[topic][d]) for d, grade in documents.items() if d in theirs.get(topic, {})]
        if pairs:
            found[numbers.get(topic, str(topic))] = pairs
    return found


def judge_verification(*, judge: MachineJudge, reveal: bool, draws: int = verify.DRAWS) -> dict:
    """Everything the page and the API show of one judge (see the module). Cached per results version."""
    version = results_version(collection=judge.collection)
    key = f"verification:{judge.pk}:{judge.configuration}:{reveal}:{draws}"
    report = cached_for_version(key, version, lambda: _verification(judge, reveal, draws))
    # Probes change no label, so no results version: their flag is read afresh, never from the cached report.
    return {**report, "judge": {**report["judge"], "gullibility": machine_selectors.gullibility(judge=judge)}}


def _verification(judge: MachineJudge, reveal: bool, draws: int) -> dict:
    collection = judge.collection
    cats = list(range(collection.max_grade + 1))
    threshold = collection.relevance_threshold
    judgments, consensus, pooled = _inputs(collection)
    machine = _own(judgments, judge.account_id)
    names = judging_selectors.assessor_names(collection=collection, reveal=reveal)
    advisory = sources.advisory_accounts(collection=collection)
    people = sorted(
        {a for docs in judgments.values() for grades in docs.values() for a in grades} - advisory - {judge.account_id}
    )
    verified = _pairs(machine, consensus)
    unverified = {(t, d): g for t, docs in machine.items() for d, g in docs.items() if d not in consensus.get(t, {})}
    report = {
        "judge": {
            "id": judge.pk,
            "name": judge.name,
            "version": judge.version,
            "provider": judge.provider,
            "model_family": judge.model_family,
            "advisory": judge.account_id in advisory,
            "gullibility": machine_selectors.gullibility(judge=judge),
            **judge_reply_counts(judge=judge),
        },
        "labels": sum(len(docs) for docs in machine.values()),
        "against_consensus": verify.pair_agreement(verified, categories=cats, threshold=threshold),
        "against_people": [
            {
                "assessor": names.get(p, f"assessor {p}"),
                **verify.pair_agreement(_pairs(machine, _own(judgments, p)), categories=cats, threshold=threshold),
            }
            for p in people
        ],
        "error_rates": verify.error_rates(verified, categories=cats, threshold=threshold),
        "rating_bias": verify.rating_bias(verified, threshold=threshold),
        "per_topic": verify.per_topic_agreement(_pairs_by_topic(machine, consensus, collection), threshold=threshold),
        "verified": len(verified),
        "unverified": len(unverified),
        "calibration": _calibration(judge, machine, consensus, threshold),
    }
    report.update(_leaderboards(collection, judge, machine, consensus, pooled, verified, unverified, draws))
    return report


def _calibration(judge, machine, consensus, threshold) -> dict:
    """The judge's confidence that a verified item is relevant (the share of its votes at or above the threshold;
    0 or 1 for a label asked once) against the people's consensus."""
    replies = MachineReply.objects.filter(
        judge=judge, configuration=judge.configuration, failure="", votes__isnull=False
    ).values_list("topic_id", "document_id", "votes")
    votes = {(t, d): v for t, d, v in replies}
    confidence, relevant = [], []
    for topic, documents in machine.items():
        for document, grade in documents.items():
            if document in consensus.get(topic, {}):
                own = votes.get((topic, document)) or [grade]
                confidence.append(sum(v >= threshold for v in own) / len(own))
                relevant.append(consensus[topic][document] >= threshold)
    return verify.calibration(confidence, relevant) | {"sampled": bool(votes), "samples": judge.samples}


def _leaderboards(collection, judge, machine, consensus, pooled, verified, unverified, draws) -> dict:
    """The runs' order under the machine's labels against the people's (tau, tau_ap), the holes-filled leaderboard
    beside the people's, and the corrections' stability."""
    topic_ids = list(Topic.objects.filter(collection=collection).order_by("id").values_list("id", flat=True))
    runs = ranking_cache.collection_runs(topic_ids=topic_ids)
    tags = dict(collection.runs.values_list("id", "tag"))
    options = engine_options(collection)
    measure = collection.agreement_measure
    filled = verify.holes_filled(consensus, machine, pooled)
    measures = list(stored_measures(collection))
    people_scores = verify.run_scores(consensus, runs, measures, **options)
    filled_scores = verify.run_scores(filled, runs, measures, **options)
    ranking, scores = {"kendall_tau": None, "tau_ap": None, "kendall_at_10": None}, None
    if consensus and machine:
        mine = {t: {d: {"machine": g} for d, g in docs.items()} for t, docs in machine.items()}
        agreement = system_ranking_agreement(mine, consensus, runs, measure=measure, **options)
        scores = agreement["scores"]  # the same scores the taus are of: kendall@10 is their top-heavy view
        top = verify.kendall_at_k(scores["consensus"], scores["machine"])
        ranking = {**agreement["against_consensus"]["machine"], "kendall_at_10": top}
    stability = verify.correction_stability(
        filled,
        unverified,
        verified,
        runs,
        categories=list(range(collection.max_grade + 1)),
        measure=measure,
        draws=draws,
        **options,
    )
    rows = [
        {
            "run": tags.get(int(tag), tag),
            "people": people_scores[tag],
            "filled": filled_scores[tag],
            "difference": [_difference(a, b) for a, b in zip(people_scores[tag], filled_scores[tag], strict=True)],
        }
        for tag in runs.tags
    ]
    shared = _sharing_family(collection, judge)
    for row in rows:
        row["shares_family"] = row["run"] in shared.values()
    holes = sum(1 for t, docs in pooled.items() for d in docs if d not in consensus.get(t, {}))
    filled_count = sum(len(docs) for docs in filled.values()) - sum(len(docs) for docs in consensus.values())
    return {
        "measure": measure,
        "ranking": ranking,
        "top_runs": min(verify.TOP_SYSTEMS, len(runs.tags)),  # what τ@10 is over, said so when fewer than ten
        "measures": measures,
        "leaderboard": sorted(rows, key=lambda r: r["run"]),
        "holes": holes,
        "holes_filled": filled_count,
        "stability": stability,
        "circularity": _without_shared(judge, shared, scores, consensus, filled, runs, measure, options),
    }


def _sharing_family(collection, judge: MachineJudge) -> dict[str, str]:
    """{run id as the run set's tag: run tag} of the runs that declare the judge's own model family."""
    families = collection.runs.values_list("id", "tag", "model_family")
    return {str(pk): tag for pk, tag, family in families if verify.same_family(family, judge.model_family)}


def _without_shared(judge, shared, scores, consensus, filled, runs, measure, options) -> dict:
    """The machine-vs-people taus (of the scores the overall taus are of) and the holes-filled board's, over every
    run and over the runs that do not share the judge's model family (a run using the judge's own model may be
    favoured by it: Clarke and Dietz, 2024)."""
    found = {"family": judge.model_family, "runs": sorted(shared.values()), "all": None, "without": None}
    if not shared or scores is None:
        return found
    people = {t: v[0] for t, v in verify.run_scores(consensus, runs, [measure], **options).items()}
    holes = {t: v[0] for t, v in verify.run_scores(filled, runs, [measure], **options).items()}
    for name, left_out in (("all", ()), ("without", shared)):
        found[name] = {
            "machine": verify.ranking_agreement(scores["consensus"], scores["machine"], leave_out=left_out),
            "filled": verify.ranking_agreement(people, holes, leave_out=left_out),
        }
    return found


def _difference(people: float | None, filled: float | None) -> float | None:
    return None if people is None or filled is None else filled - people


def holes_filled_qrels(*, judge: MachineJudge) -> dict[int, dict[int, int]]:
    """{topic id: {document id: grade}}: the consensus with the judge's labels in the pool's holes."""
    judgments, consensus, pooled = _inputs(judge.collection)
    return verify.holes_filled(consensus, _own(judgments, judge.account_id), pooled)
