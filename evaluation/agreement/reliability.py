"""Reads behind the per-assessor reliability table (the campaign page, its CSV and JSON, the API): one row per
assessor who labelled the collection, people, machine judges and imported labels alike, with

- judgments (first labels), median seconds per judgment;
- gold accuracy: exact agreement with the collection's gold items (its gold assessors' labels, an imported
  reference qrels say, and its adjudicated items), with Wilson's 95% interval; a gold assessor's own row has none;
- self-agreement on repeated items (`judging.quality`: the collection's repeated items, `judging.quality.selectors`);
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

from django.contrib.auth import get_user_model

from evaluation.files import spreadsheet_text
from evaluation.models import AgreementReport
from judging import selectors as judging_selectors
from judging.machines import selectors as machine_selectors
from judging.models import Collection
from judging.quality import selectors as checking
from judging.quality.core import (
    Label,
    agreement_blocks,
    assessor_quality,
    in_time_order,
    others_labels,
    relevant_blocks,
)
from judging.quality.models import AssessorPause
from judging.sources import selectors as sources
from measures.consensus import dawid_skene

User = get_user_model()

COLUMNS = [
    "assessor", "kind", "advisory", "judgments", "median_seconds", "gold_items", "gold_accuracy", "gold_low",
    "gold_high", "self_agreement", "consensus_kappa", "dawid_skene_accuracy", "flags", "paused",
]  # fmt: skip


@dataclass
class ReliabilityRow:
    assessor: str
    kind: str  # the source's kind: "person" | "machine" | "imported" | "clicks"
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
    """Each labelling account's kind in the collection: its label source's (person where it has none)."""
    return sources.source_kinds(collection=collection, account_ids=list(usernames))


@dataclass
class _Labelled:
    """Every graded judgment of a collection, read once: each assessor's labels in time order, their usernames, and
    each item's labels (for Dawid–Skene)."""

    labels: dict[int, list[Label]]
    usernames: dict[int, str]
    items: dict[tuple[int, int], dict[int, int]]


def _labelled(collection: Collection) -> _Labelled:
    rows = sources.every_label(collection=collection).filter(grade__isnull=False).order_by("created_at", "id")
    rows = rows.values_list("assessor_id", "assessor__username", "topic_id", "document_id", "grade", "created_at",
                            "seconds_spent")  # fmt: skip
    found = _Labelled({}, {}, {})
    labels = []
    for order, (who, username, topic, document, grade, created, seconds) in enumerate(rows):
        found.usernames[who] = username
        labels.append(Label(str(topic), str(document), grade, str(who), created.isoformat(), seconds, order))
        found.items.setdefault((topic, document), {})[who] = grade
    # Answers to gold and repeated items measure the assessor (a repeat is their second label of an item) and never
    # the item: Dawid–Skene, like the consensus, sees first labels only.
    answers = checking.check_answers(collection=collection)
    names = dict(User.objects.filter(pk__in={row[0] for row in answers}).values_list("pk", "username"))
    for order, (who, topic, document, grade, _, answered, seconds) in enumerate(answers, start=len(labels)):
        found.usernames.setdefault(who, names[who])
        labels.append(Label(str(topic), str(document), grade, str(who), answered.isoformat(), seconds, order))
    found.labels = {int(who): rows for who, rows in in_time_order(labels).items()}
    return found


def _gold(collection: Collection) -> dict[tuple[str, str], int]:
    """The gold items (`judging.selectors.collection_gold`), keyed as the labels are."""
    return {(str(t), str(d)): g for (t, d), g in judging_selectors.collection_gold(collection=collection).items()}


def _names(collection: Collection, reveal: bool) -> dict[int, str]:
    return judging_selectors.assessor_names(collection=collection, reveal=reveal)


def _yardsticks(collection: Collection, labels: dict[int, list[Label]]) -> dict[int, dict[tuple[str, str], int]]:
    """Each assessor's yardstick besides gold: the collection's own consensus method over the counted (not
    advisory) other assessors' labels, as the pause decision reads it (`measures.consensus.others_consensus`)."""
    counted_labels = sources.counted_by_account(labels, advisory=sources.advisory_accounts(collection=collection))
    counted = {str(who): rows for who, rows in counted_labels.items()}
    primary = str(collection.primary_assessor_id) if collection.primary_assessor_id else None
    return {
        who: others_labels(
            {**counted, str(who): mine}, str(who), method=collection.consensus_method, primary=primary,
            categories=range(collection.max_grade + 1),
        )
        for who, mine in labels.items()
    }  # fmt: skip


def assessor_reliability(*, collection: Collection, reveal: bool) -> list[ReliabilityRow]:
    """The table's rows, people first then machines and imported labels, each by name."""
    found = _labelled(collection)
    labels, usernames, items = found.labels, found.usernames, found.items
    gold = _gold(collection)
    report = AgreementReport.objects.filter(collection=collection, topic__isnull=True).values_list("report", flat=True)
    stored = report.first() or {}
    # People against the consensus they are part of; advisory sources against the one they are not (measured apart).
    against = stored.get("against_consensus", {}) | stored.get("advisory_against_consensus", {})
    accuracy = (
        dawid_skene(items, categories=range(collection.max_grade + 1)).assessor_accuracy if len(usernames) > 1 else {}
    )
    names = _names(collection, reveal)
    kinds = _kinds(collection, usernames)
    advisory = sources.advisory_accounts(collection=collection)
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
    yardsticks = _yardsticks(collection, labels)
    gold_assessors = sources.gold_accounts(collection=collection)
    gullible = machine_selectors.gullible_machines(collection=collection)
    for who, mine in labels.items():
        own_gold = {} if who in gold_assessors else gold  # a reference is not measured against itself
        quality = assessor_quality(
            mine, gold=own_gold, threshold=collection.relevance_threshold, others=yardsticks[who]
        )
        low, high = quality.gold_interval
        # A file or a reference does not tire: an imported qrels, a machine's labels and a gold assessor's are
        # measured (agreement, gold accuracy) but never flagged as a person drifting (NIST's qrels once were).
        flagged = kinds[who] == "person" and who not in gold_assessors
        flags = [flag.as_dict() for flag in quality.flags] if flagged else []
        if who in gullible:
            flags.append(machine_selectors.gullible_flag(gullible[who]))
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
                flags=flags,
                user_id=who,
                paused=pauses.get(who),
            )
        )
    order = {"person": 0, "machine": 1, "imported": 2}
    return sorted(table, key=lambda row: (order[row.kind], row.assessor))


def agreement_over_time(*, collection: Collection, reveal: bool) -> dict[str, list[tuple[int, float | None]]]:
    """{assessor: [(block start, share agreeing with gold or the counted others)]}, blocks of `WINDOW` judgments."""
    labels = _labelled(collection).labels
    gold, names, yardsticks = _gold(collection), _names(collection, reveal), _yardsticks(collection, labels)
    return {
        names.get(who, f"assessor {who}"): agreement_blocks(mine, gold=gold, others=yardsticks[who])
        for who, mine in labels.items()
    }


def relevant_over_time(*, collection: Collection, reveal: bool) -> dict[str, list[tuple[int, float]]]:
    """{assessor: [(block start, share judged relevant)]}, blocks of `WINDOW` judgments: grades over time."""
    labels, names = _labelled(collection).labels, _names(collection, reveal)
    threshold = collection.relevance_threshold
    return {
        names.get(who, f"assessor {who}"): relevant_blocks(mine, threshold=threshold) for who, mine in labels.items()
    }


def reliability_csv(rows: list[ReliabilityRow]) -> str:
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=COLUMNS, lineterminator="\n")
    writer.writeheader()
    for row in rows:
        record = asdict(row)
        record["flags"] = "; ".join(
            f"{f['kind']}{'' if f['from'] is None else ' from ' + str(f['from'])}: {f['reason']}" for f in row.flags
        )
        record["assessor"] = spreadsheet_text(record["assessor"])
        record["paused"] = row.paused["reason"] if row.paused else ""
        record.pop("user_id")
        writer.writerow({key: "" if value is None else value for key, value in record.items()})
    return buffer.getvalue()
