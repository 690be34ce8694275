"""trec_eval's judgment groups (`-R qrels_jg`), pure: several assessors' (users') own label sets per topic, and
P, map and Rprec_mult averaged over them (`P_avgjg`, `map_avgjg`, `Rprec_mult_avgjg`), as trec_eval's
`get_qrels_jg.c`, `form_res_rels_jg.c` and `m_*_avgjg.c` compute them.

The file's lines are `qid jg docno rel`: the second column names the judgment group (where qrels have their unused
"iter"); exactly four columns. A topic's groups are those with a line for it; a docno twice in one (topic, group)
is an error. Each (run, topic) is scored against each of the topic's groups alone, as trec_eval scores a run
against qrels, and the values are averaged over the topic's groups; topics are then averaged as usual. A group
with no relevant document for the topic adds 0 (its relevant count is its own).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping, Sequence
from pathlib import Path

import numpy as np

from measures.batch import TREC_EVAL_VERSION
from measures.data import PreparedQrels
from measures.engine import evaluate
from measures.lines import TrecFormatError
from measures.loading import TrecReader
from measures.names import Measure
from measures.parsing import parse_measures
from measures.runset import RunSet
from measures.trec_names import printed_name

AVERAGED = {"P_avgjg": "P", "map_avgjg": "map", "Rprec_mult_avgjg": "Rprec_mult"}
NICKNAME = ["runid", "num_q", "map_avgjg", "P_avgjg", "Rprec_mult_avgjg"]  # trec_eval's `-m qrels_jg`

Groups = dict[str, dict[str, dict[str, int]]]  # topic -> group -> docno -> grade


def read_qrels_jg(path: str | Path) -> Groups:
    """{topic: {group: {docno: grade}}}; TrecFormatError names the line of a malformed one or a repeated docno.
    A line whose first column starts with '#' is a comment, as in every trec_eval 10.0 reader (its own test file
    qrels.comments.123 has one among `qid jg docno rel` lines)."""
    groups: Groups = {}
    name = str(path)
    with open(path, encoding="utf-8", errors="strict") as lines:
        for number, text in enumerate(lines, start=1):
            fields = text.split()
            if not fields or fields[0].startswith("#"):
                continue
            if len(fields) != 4:
                raise TrecFormatError(name, number, None, f"expected 4 columns 'qid jg docno rel', got {len(fields)}")
            topic, group, docno, rel = fields
            try:
                grade = int(rel)
            except ValueError as error:
                raise TrecFormatError(name, number, "rel", f"expected an integer, got {rel!r}") from error
            docs = groups.setdefault(topic, {}).setdefault(group, {})
            if docno in docs:
                raise TrecFormatError(name, number, "docno", f"document {docno!r} judged twice by group {group!r}")
            docs[docno] = grade
    return groups


def averaged_name(measure_name: str) -> tuple[str, str]:
    """(`P_avgjg.5,10` ->) the averaged family and the name of the measure each group is scored with (`P.5,10`)."""
    family, dot, params = measure_name.partition(".")
    return family, AVERAGED[family] + dot + params


def averaged_over_groups(
    groups: Mapping[Hashable, Mapping[Hashable, Mapping[Hashable, int]]],
    runs: RunSet,
    measures: Sequence[Measure],
    *,
    prepare: Callable[[dict], PreparedQrels],
    topic_key: Callable[[int], Hashable],
    **options,
) -> dict[str, dict[Hashable, np.ndarray]]:
    """{run tag: {topic: each measure's value averaged over the topic's groups}} for the topics with groups that the
    run ranked: each group's labels scored alone (`prepare` makes its qrels; `topic_key` names an evaluated topic id
    as `groups` does), summed over the groups in their sorted order and divided by their number, as trec_eval does.
    `options` are the engine's (relevance_level, judged_only, depth...)."""
    totals: dict[tuple[str, Hashable], np.ndarray] = {}
    counts: dict[tuple[str, Hashable], int] = {}
    for group in sorted({g for by_group in groups.values() for g in by_group}, key=str):
        qrels = {topic: by_group[group] for topic, by_group in groups.items() if group in by_group}
        result = evaluate(prepare(qrels), runs, list(measures), **options)
        for tag, run_result in result.runs.items():
            for topic_id, row in zip(run_result.topics, run_result.values, strict=True):
                key = (tag, topic_key(int(topic_id)))
                totals[key] = totals.get(key, 0.0) + row
                counts[key] = counts.get(key, 0) + 1
    values: dict[str, dict[Hashable, np.ndarray]] = {tag: {} for tag in runs.tags}
    for (tag, topic), total in totals.items():
        values[tag][topic] = total / counts[(tag, topic)]
    return values


def evaluate_groups(
    groups: Groups,
    reader: TrecReader,
    runs: RunSet,
    measure_names: Sequence[str],
    **options,
) -> tuple[list[str], dict[str, dict[str, np.ndarray]]]:
    """(the printed names, {run tag: {topic: values in that order}}) of every `*_avgjg` measure asked for, read from
    a qrels_jg file (`read_qrels_jg`) with `reader`'s vocabularies. `options` are the engine's."""
    printed, bases = [], []
    for name in measure_names:
        family, base = averaged_name(name)
        for measure in parse_measures(base):
            bases.append(measure)
            printed.append(printed_name(measure, TREC_EVAL_VERSION).replace(AVERAGED[family], family, 1))
    values = averaged_over_groups(groups, runs, bases, prepare=reader.qrels, topic_key=reader.topic_name, **options)
    return printed, values
