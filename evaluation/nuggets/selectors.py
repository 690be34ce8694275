"""Reads of RAG answer scores: a topic's inputs to its recompute (the consensus of the labels that count), the RAG
leaderboard with its freshness, the people's agreement on assignments, a machine assigner measured against people,
and the exports in nuggetizer's and TREC's formats. Labels are read only through `judging.sources.selectors`."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

from evaluation.models import AnswerTopicState
from evaluation.nuggets.core import (
    ASSIGNMENT_LABELS,
    FAILED,
    SCORES,
    SUPPORT_LABELS,
    NuggetScores,
    majority,
    mean_scores,
    nugget_scores,
)
from evaluation.nuggets.models import AnswerScores
from evaluation.selectors import run_aggregates, stored_measures
from judging.machines.models import MachineJudge
from judging.models import Collection, Document, Run, Topic
from judging.rag.models.answers import Answer
from judging.rag.models.nuggets import AssignmentAdjudication, Nugget
from judging.rag.selectors import answers as answer_labels
from judging.rag.selectors import nuggets as nugget_labels
from measures import agreement
from measures.correlation import kendall_tau, tau_ap

UNASSIGNED = "unassigned"  # an accepted nugget nobody has labelled on an answer yet: earns 0, as any other label


@dataclass
class AnswerTopicInputs:
    answers: list[Answer]
    nuggets: list[tuple[int, str]]  # (nugget id, importance), accepted and not removed, in the topic's order
    labels: dict[tuple[int, int], str] = field(default_factory=dict)  # (answer, nugget): the consensus label
    people: dict[tuple[int, int], dict[int, str]] = field(default_factory=dict)  # counted people's labels
    adjudicated: set[tuple[int, int]] = field(default_factory=set)
    support: dict[tuple[int, int, int], str] = field(default_factory=dict)  # (answer, sentence, document): label

    def assigned(self, answer_id: int) -> int:
        return sum((answer_id, n) in self.labels for n, _ in self.nuggets)

    def scores(self, answer_id: int) -> NuggetScores | None:
        """The answer's four scores, or None when no nugget of it has a counted label (no assignment record)."""
        if not self.assigned(answer_id):
            return None
        return nugget_scores((imp, self.labels.get((answer_id, n), UNASSIGNED)) for n, imp in self.nuggets)

    def support_of(self, answer: Answer) -> list[list[str | None]]:
        return [
            [self.support.get((answer.pk, index, answer.references[p])) for p in sentence["citations"]]
            for index, sentence in enumerate(answer.sentences)
        ]

    def agreement(self) -> dict:
        """The people's agreement on this topic's assignments: Fleiss' kappa over the (answer, nugget) items two or
        more of them labelled, and how many such items disagree without an adjudication."""
        items = [labels for labels in self.people.values() if len(labels) >= 2]
        disagreements = sum(
            1 for key, labels in self.people.items() if len(set(labels.values())) > 1 and key not in self.adjudicated
        )
        kappa = agreement.fleiss_kappa(items, categories=ASSIGNMENT_LABELS) if items else None
        return {"fleiss_kappa": kappa, "items": len(items), "disagreements": disagreements}


def _consensus(collection: Collection, topic_ids: list[int], nugget_ids: set[int]):
    """{(answer, nugget): consensus label}, the people's counted labels, and the adjudicated keys, for the topics."""
    votes: dict[tuple[int, int], list[str]] = defaultdict(list)
    people: dict[tuple[int, int], dict[int, str]] = defaultdict(dict)
    persons = set(
        nugget_labels.people_assignments(collection=collection, topic_ids=topic_ids).values_list(
            "assessor_id", flat=True
        )
    )
    rows = nugget_labels.counted_assignments(collection=collection, topic_ids=topic_ids).filter(
        nugget_id__in=nugget_ids
    )
    for answer_id, nugget_id, assessor_id, label in rows.values_list("answer_id", "nugget_id", "assessor_id", "label"):
        votes[answer_id, nugget_id].append(label)
        if assessor_id in persons and label != FAILED:
            people[answer_id, nugget_id][assessor_id] = label
    labels = {key: majority(found, ASSIGNMENT_LABELS) for key, found in votes.items()}
    adjudicated = set()
    decided = AssignmentAdjudication.objects.filter(answer__topic_id__in=topic_ids, nugget_id__in=nugget_ids)
    for answer_id, nugget_id, label in decided.values_list("answer_id", "nugget_id", "label"):
        labels[answer_id, nugget_id] = label
        adjudicated.add((answer_id, nugget_id))
    return labels, dict(people), adjudicated


def _scored_nuggets(topic_ids: list[int]) -> dict[int, list[tuple[int, str]]]:
    nuggets = defaultdict(list)
    rows = Nugget.objects.filter(topic_id__in=topic_ids, accepted=True, removed=False).order_by("position", "id")
    for topic_id, nugget_id, importance in rows.values_list("topic_id", "id", "importance"):
        nuggets[topic_id].append((nugget_id, importance))
    return nuggets


def answer_topic_inputs(*, topic_id: int) -> AnswerTopicInputs:
    """What a topic's answer scores are computed from: its answers, its scored nuggets, the consensus of the counted
    assignments (an adjudication wins; else the majority, a tie to the more supportive label) and of the counted
    support judgments."""
    topic = Topic.objects.select_related("collection").get(pk=topic_id)
    collection = topic.collection
    nuggets = _scored_nuggets([topic_id])[topic_id]
    labels, people, adjudicated = _consensus(collection, [topic_id], {n for n, _ in nuggets})
    support_votes: dict[tuple[int, int, int], list[str]] = defaultdict(list)
    rows = answer_labels.counted_support(collection=collection, topic_ids=[topic_id])
    for answer_id, sentence, document_id, label in rows.values_list("answer_id", "sentence", "document_id", "label"):
        support_votes[answer_id, sentence, document_id].append(label)
    support = {key: majority(found, SUPPORT_LABELS) for key, found in support_votes.items()}
    answers = list(Answer.objects.filter(topic_id=topic_id).order_by("run_id"))
    return AnswerTopicInputs(answers, nuggets, labels, people, adjudicated, support)


# The RAG leaderboard


def answers_freshness(*, collection: Collection) -> dict:
    """Whether every answered topic's scores are those of its current labels: {"fresh", "stale_topics"}."""
    stale = AnswerTopicState.objects.filter(topic__collection=collection).stale()
    count = stale.count()
    return {"fresh": count == 0, "stale_topics": count}


def _means(values: list[float]) -> float | None:
    return sum(values) / len(values) if values else None


def rag_leaderboard(*, collection: Collection, measures: list[str] | None = None) -> dict:
    """Each run with answers: its four nugget scores (the mean over its scored answers, as nuggetizer: an answer
    without a counted assignment is left out, and so is a topic it did not answer), its support precision and
    recall (the mean over answers with a judged citation), and its document measures over its references; best
    all_score first. With the freshness of the answer scores and of the document measures."""
    measures = measures if measures is not None else stored_measures(collection)[:3]
    runs = {run.pk: run for run in Run.objects.filter(collection=collection, answers__isnull=False).distinct()}
    per_run: dict[int, list] = defaultdict(list)
    rows = AnswerScores.objects.filter(topic__collection=collection).select_related("answer")
    counts = defaultdict(int)
    for row in rows:
        counts[row.answer.run_id] += 1
        per_run[row.answer.run_id].append(row)
    documents = run_aggregates(collection_id=collection.pk, measures=measures)
    board = []
    for run_id, run in runs.items():
        stored = per_run.get(run_id, [])
        scored = [
            NuggetScores(*(getattr(r, name) for name in SCORES)) for r in stored if r.strict_all_score is not None
        ]
        board.append({
            "run": run.tag, "run_id": run_id, "answers": run.answers.count(), "scored": len(scored),
            **(mean_scores(scored) if scored else dict.fromkeys(SCORES)),
            "support_precision": _means([r.support_precision for r in stored if r.support_precision is not None]),
            "support_recall": _means([r.support_recall for r in stored if r.support_recall is not None]),
            "documents": {m: documents.get(run_id, {}).get(m, (None, 0))[0] for m in measures},
        })  # fmt: skip
    board.sort(key=lambda row: (-(row["all_score"] if row["all_score"] is not None else -1), row["run"]))
    return {"runs": board, "measures": measures, "freshness": answers_freshness(collection=collection)}


def assignment_agreement(*, collection: Collection) -> dict:
    """The people's agreement on assignments: Fleiss' kappa over the whole collection (computed here from every
    topic's counted labels) and per topic (as stored with each topic's scores)."""
    topic_ids = list(
        Topic.objects.filter(collection=collection, answers__isnull=False).distinct().values_list("id", flat=True)
    )
    nuggets = _scored_nuggets(topic_ids)
    scored = {n for found in nuggets.values() for n, _ in found}
    _, people, adjudicated = _consensus(collection, topic_ids, scored)
    overall = AnswerTopicInputs([], [], people=people, adjudicated=adjudicated).agreement()
    per_topic = [
        {"topic": number, **(report or {})}
        for number, report in AnswerTopicState.objects.filter(topic__collection=collection)
        .order_by("topic_id")
        .values_list("topic__number", "agreement")
    ]
    return {"collection": overall, "topics": per_topic}


def machine_against_people(*, collection: Collection) -> list[dict]:
    """Each machine assigner (an advisory machine judge with assignments) measured against the people's consensus,
    as the TREC RAG studies report it: per run, the four scores from the machine's labels and from the people's
    over the answers both labelled; Kendall's tau and tau_AP between the two run orders per score; the mean
    per-topic tau; and the labels' agreement (Cohen's kappa and the share equal, over the items both labelled)."""
    found = []
    topic_ids = list(
        Topic.objects.filter(collection=collection, answers__isnull=False).distinct().values_list("id", flat=True)
    )
    nuggets = _scored_nuggets(topic_ids)
    scored = {n for found_ in nuggets.values() for n, _ in found_}
    people_labels, _, _ = _consensus(collection, topic_ids, scored)
    advisory = nugget_labels.advisory_assignments(collection=collection, topic_ids=topic_ids).filter(
        nugget_id__in=scored
    )
    by_account: dict[int, dict[tuple[int, int], str]] = defaultdict(dict)
    for account, answer_id, nugget_id, label in advisory.values_list("assessor_id", "answer_id", "nugget_id", "label"):
        by_account[account][answer_id, nugget_id] = label
    answers = {a.pk: a for a in Answer.objects.filter(topic_id__in=topic_ids).only("id", "run_id", "topic_id")}
    judges = {j.account_id: j for j in MachineJudge.objects.filter(collection=collection, account_id__in=by_account)}
    for account, labels in by_account.items():
        both = {a for a, _ in labels} & {a for a, _ in people_labels}
        machine_scores = _answer_scores(both, answers, nuggets, labels)
        people_scores = _answer_scores(both, answers, nuggets, people_labels)
        common = [key for key in labels if key in people_labels]
        items = [{0: people_labels[k], 1: labels[k]} for k in common if labels[k] != FAILED]
        found.append({
            "judge": judges[account].name if account in judges else str(account),
            "answers": len(both), "items": len(common),
            "failed": sum(1 for k in labels if labels[k] == FAILED),
            "equal": (sum(1 for i in items if i[0] == i[1]) / len(items)) if items else None,
            "kappa": agreement.cohen_kappa(items, categories=ASSIGNMENT_LABELS) if items else None,
            **_rank_agreement(machine_scores, people_scores, answers),
        })  # fmt: skip
    return found


def _answer_scores(answer_ids, answers, nuggets, labels) -> dict[int, NuggetScores]:
    return {
        a: nugget_scores((imp, labels.get((a, n), UNASSIGNED)) for n, imp in nuggets.get(answers[a].topic_id, []))
        for a in answer_ids
    }


def _rank_agreement(machine: dict[int, NuggetScores], people: dict[int, NuggetScores], answers) -> dict:
    runs = defaultdict(list)
    for answer_id in machine:
        runs[answers[answer_id].run_id].append(answer_id)
    tags = dict(Run.objects.filter(pk__in=runs).values_list("id", "tag"))
    result = {"runs": []}
    for run_id, ids in sorted(runs.items(), key=lambda kv: tags[kv[0]]):
        result["runs"].append({
            "run": tags[run_id],
            "machine": mean_scores([machine[a] for a in ids]),
            "people": mean_scores([people[a] for a in ids]),
        })  # fmt: skip
    for name in SCORES:
        ours = [row["machine"][name] for row in result["runs"]]
        theirs = [row["people"][name] for row in result["runs"]]
        enough = len(ours) >= 2
        result[f"tau_{name}"] = kendall_tau(theirs, ours) if enough else None
        result[f"tau_ap_{name}"] = tau_ap(theirs, ours) if enough else None
    by_topic = defaultdict(list)
    for answer_id in machine:
        by_topic[answers[answer_id].topic_id].append(answer_id)
    taus = [
        kendall_tau([people[a].all_score for a in ids], [machine[a].all_score for a in ids])
        for ids in by_topic.values()
        if len(ids) >= 2
    ]
    taus = [t for t in taus if t == t]
    result["per_topic_tau_all_score"] = sum(taus) / len(taus) if taus else None
    return result


# Exports


def _provenance(collection: Collection, what: str) -> dict:
    return {"collection": collection.name, "what": what}


def nuggets_records(*, collection: Collection) -> list[dict]:
    """nuggetizer's `create` format: one record per topic with scored nuggets, {query, qid, nuggets: [{text,
    importance}]}, plus where it came from."""
    topics = Topic.objects.filter(collection=collection).order_by("id")
    nuggets = defaultdict(list)
    for nugget in Nugget.objects.filter(topic__collection=collection, accepted=True, removed=False).order_by(
        "position", "id"
    ):
        nuggets[nugget.topic_id].append({"text": nugget.text, "importance": nugget.importance})
    provenance = _provenance(collection, "accepted nuggets, as people post-edited them")
    return [
        {"query": t.title, "qid": t.number, "nuggets": nuggets[t.pk], "provenance": provenance}
        for t in topics
        if nuggets[t.pk]
    ]


def assignment_records(*, collection: Collection, run: Run) -> list[dict]:
    """nuggetizer's `assign --input-kind answers` format for one run: a record per answer with a counted assignment
    (the answers the run is scored on), each scored nugget with its consensus label ("unassigned" where nobody has
    labelled it yet, which earns 0 as nuggetizer's other labels do)."""
    answers = list(Answer.objects.filter(run=run).select_related("topic").order_by("topic_id"))
    topic_ids = [a.topic_id for a in answers]
    nuggets = _scored_nuggets(topic_ids)
    texts = dict(Nugget.objects.filter(topic_id__in=topic_ids).values_list("id", "text"))
    labels, _, _ = _consensus(collection, topic_ids, {n for found in nuggets.values() for n, _ in found})
    provenance = _provenance(collection, "the consensus of the labels that count")
    records = []
    for answer in answers:
        scored = nuggets.get(answer.topic_id, [])
        if not any((answer.pk, n) in labels for n, _ in scored):
            continue
        records.append({
            "query": answer.topic.title, "qid": answer.topic.number,
            "answer_text": " ".join(s["text"] for s in answer.sentences), "response_length": answer.words,
            "run_id": run.tag,
            "nuggets": [{"text": texts[n], "importance": imp, "assignment": labels.get((answer.pk, n), UNASSIGNED)}
                        for n, imp in scored],
            "provenance": provenance,
        })  # fmt: skip
    return records


def answer_records(*, run: Run) -> list[dict]:
    """The run's answers in the TREC RAG 2024 format (references by docno, citations by position)."""
    answers = list(Answer.objects.filter(run=run).select_related("topic").order_by("topic_id"))
    docnos = dict(Document.objects.filter(pk__in={d for a in answers for d in a.references}).values_list("id", "docno"))
    return [
        {
            "run_id": run.tag,
            "topic_id": a.topic.number,
            "topic": a.topic.title,
            "references": [docnos[d] for d in a.references],
            "response_length": a.words,
            "answer": [{"text": s["text"], "citations": s["citations"]} for s in a.sentences],
        }
        for a in answers
    ]
