"""Reads behind the per-assessor reliability table (the campaign page, its CSV and JSON, the API): one row per
assessor who labelled the collection, people, machine judges and imported labels alike, with

- judgments (first labels), median seconds per judgment;
- gold accuracy: exact agreement with the collection's gold items, which are its adjudicated items (an admin's
  decision), with Wilson's 95% interval;
- self-agreement on repeated items (`judging.quality`; none until items are shown again);
- agreement with the consensus: Cohen's kappa from the stored collection-wide agreement report;
- Dawid–Skene's estimated accuracy (the prior-weighted diagonal of its confusion matrix for the assessor), fitted
  over every labelled item;
- flags from `judging.quality`: a change in their agreement with the counted assessors (or, without enough shared
  items, in their grades), random answering, runs of implausibly fast judgments.
"""

from __future__ import annotations

import csv
import io
from dataclasses import asdict, dataclass, field

from judging import selectors as judging_selectors
from judging.models import AssessorPause, Collection, Judgment, MachineJudge
from judging.quality import Label, assessor_quality, others_labels

from .consensus import dawid_skene
from .exports import spreadsheet_text
from .models import AgreementReport

COLUMNS = [
    "assessor", "kind", "advisory", "judgments", "median_seconds", "gold_items", "gold_accuracy", "gold_low",
    "gold_high", "self_agreement", "consensus_kappa", "dawid_skene_accuracy", "flags", "paused",
]  # fmt: skip


@dataclass
class ReliabilityRow:
    assessor: str
    kind: str  # "person" | "machine" | "imported"
    advisory: bool
    judgments: int
    median_seconds: float | None
    gold_items: int
    gold_accuracy: float | None
    gold_low: float | None
    gold_high: float | None
    self_agreement: float | None
    consensus_kappa: float | None
    dawid_skene_accuracy: float | None
    flags: list[dict] = field(default_factory=list)
    user_id: int = 0
    paused: dict | None = None  # {"id", "reason", "since"} while the assessor's judging is paused


def _kinds(collection: Collection, usernames: dict[int, str]) -> dict[int, str]:
    machines = set(MachineJudge.objects.filter(collection=collection).values_list("account_id", flat=True))
    return {
        pk: "machine" if pk in machines else "imported" if name.startswith(("qrels:", "machine:")) else "person"
        for pk, name in usernames.items()
    }


def assessor_reliability(*, collection: Collection, reveal: bool) -> list[ReliabilityRow]:
    """The table's rows, people first then machines and imported labels, each by name."""
    rows = Judgment.objects.filter(topic__collection=collection, grade__isnull=False).order_by("created_at", "id")
    rows = rows.values_list("assessor_id", "assessor__username", "topic_id", "document_id", "grade", "created_at",
                            "seconds_spent")  # fmt: skip
    labels: dict[int, list[Label]] = {}
    usernames: dict[int, str] = {}
    items: dict[tuple[int, int], dict[int, int]] = {}
    for order, (who, username, topic, document, grade, created, seconds) in enumerate(rows):
        usernames[who] = username
        labels.setdefault(who, []).append(
            Label(str(topic), str(document), grade, str(who), created.isoformat(), seconds, order)
        )
        items.setdefault((topic, document), {})[who] = grade
    gold = {
        (str(t), str(d)): g
        for t, documents in judging_selectors.collection_adjudications(collection_id=collection.id).items()
        for d, g in documents.items()
    }
    report = AgreementReport.objects.filter(collection=collection, topic__isnull=True).values_list("report", flat=True)
    against = (report.first() or {}).get("against_consensus", {})
    accuracy = (
        dawid_skene(items, categories=range(collection.max_grade + 1)).assessor_accuracy if len(usernames) > 1 else {}
    )
    names = judging_selectors.assessor_names(collection=collection, reveal=reveal)
    names |= dict(MachineJudge.objects.filter(collection=collection).values_list("account_id", "name"))
    kinds = _kinds(collection, usernames)
    advisory = set(collection.advisory_assessors or ())
    pauses = {
        p.assessor_id: {
            "id": p.pk,
            "reason": p.reason,
            "since": p.paused_at.isoformat(),
            "since_text": p.paused_at.strftime("%Y-%m-%d %H:%M UTC"),
            "window_start": (p.window_start or p.paused_at).isoformat(),
        }
        for p in AssessorPause.objects.filter(collection=collection, resumed_at__isnull=True)
    }
    table = []
    counted = {str(who): rows for who, rows in labels.items() if who not in advisory}  # the yardstick: people
    for who, mine in labels.items():
        others = others_labels({**counted, str(who): mine}, str(who))
        quality = assessor_quality(mine, gold=gold, threshold=collection.relevance_threshold, others=others)
        low, high = quality.gold_interval
        table.append(
            ReliabilityRow(
                assessor=names.get(who, f"assessor {who}"),
                kind=kinds[who],
                advisory=who in advisory,
                judgments=quality.judgments,
                median_seconds=quality.median_seconds,
                gold_items=quality.gold_items,
                gold_accuracy=quality.gold_accuracy,
                gold_low=low,
                gold_high=high,
                self_agreement=quality.self_agreement,
                consensus_kappa=against.get(str(who), {}).get("cohen_kappa"),
                dawid_skene_accuracy=accuracy.get(who),
                flags=[flag.as_dict() for flag in quality.flags],
                user_id=who,
                paused=pauses.get(who),
            )
        )
    order = {"person": 0, "machine": 1, "imported": 2}
    return sorted(table, key=lambda row: (order[row.kind], row.assessor))


def reliability_csv(rows: list[ReliabilityRow]) -> str:
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=COLUMNS, lineterminator="\n")
    writer.writeheader()
    for row in rows:
        record = asdict(row)
        record["flags"] = "; ".join(f"{f['kind']} from {f['from']}: {f['reason']}" for f in row.flags)
        record["assessor"] = spreadsheet_text(record["assessor"])
        record["paused"] = row.paused["reason"] if row.paused else ""
        record.pop("user_id")
        writer.writerow({key: "" if value is None else value for key, value in record.items()})
    return buffer.getvalue()
