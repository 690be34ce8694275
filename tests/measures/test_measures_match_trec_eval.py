"""Every measure trec_eval has, compared with trec_eval itself (pytrec-eval-terrier): per-topic values bit for bit,
aggregates to 1e-9 (ours are exact sums rounded once; trec_eval adds topics one at a time)."""

from __future__ import annotations

import math

import numpy as np
import pytest
import pytrec_eval

from measures import RunSet, TrecReader, evaluate, parse_measures
from measures.data import PreparedQrels, PreparedRun
from measures.trec_names import printed_name
from tests.evaluation.generated import generated_collection, qrels_lines, run_lines

TREC_MEASURES = [
    "P.5,10,15,20,30,100",
    "recall.5,10,100",
    "map",
    "map_cut.5,10,100",
    "gm_map",
    "Rprec",
    "recip_rank",
    "bpref",
    "infAP",
    "success.1,5,10",
    "iprec_at_recall",
    "11pt_avg",
    "num_ret",
    "num_rel",
    "num_rel_ret",
    "ndcg",
    "ndcg_cut.5,10,20,100",
    "set_P",
    "set_recall",
    "set_F",
    "gm_bpref",
    "relative_P.5,10,100",
    "set_relative_P",
    "set_map",
    "num_nonrel_judged_ret",
    "Rprec_mult",
    "utility",
    "binG",
    "G",
    "ndcg_rel",
    "Rndcg",
]
MEASURES = [m for name in TREC_MEASURES for m in parse_measures(name)]


def _one_id_per_docno(collection, prepared_qrels, prepared_runs):
    """The same qrels and runs with database-like ids: one id per docno whatever the topic (files give each
    (topic, docno) its own), so one document is judged for several topics, and ids far from 0."""
    first_id: dict[str, int] = {}
    shared = np.array([first_id.setdefault(name, len(first_id)) for name in collection.docs.names], dtype=np.int64)
    shared += 1_000_000  # a collection's database ids start wherever the table's sequence was
    qrels = PreparedQrels.from_mapping(
        {
            int(topic): dict(zip(shared[docs].tolist(), labels.tolist(), strict=True))
            for topic in prepared_qrels.topics
            for docs, labels in [prepared_qrels.topic_labels(topic)]
        }
    )
    return qrels, [PreparedRun(run.tag, run.topics, run.offsets, shared[run.docs]) for run in prepared_runs]


def _compare(
    qrels,
    runs,
    level,
    measures=MEASURES,
    trec_names=TREC_MEASURES,
    *,
    shared_ids=False,
    judged_only=False,
    reused=False,
):
    collection = TrecReader()
    prepared_qrels = collection.qrels(qrels)
    prepared_runs = [collection.run(tag, run) for tag, run in runs.items()]
    if shared_ids:
        prepared_qrels, prepared_runs = _one_id_per_docno(collection, prepared_qrels, prepared_runs)
    prepared = RunSet(prepared_runs, reused=reused)
    ours = evaluate(  # pytrec_eval is 9.0.x
        prepared_qrels, prepared, measures, relevance_level=level, trec_eval=9, judged_only=judged_only
    )
    evaluator = pytrec_eval.RelevanceEvaluator(
        qrels, set(trec_names), relevance_level=level, judged_docs_only_flag=judged_only
    )
    compared = 0
    for tag, run in runs.items():
        reference = evaluator.evaluate(run)
        result = ours.runs[tag]
        assert {collection.topic_name(t) for t in result.topics} == set(reference)
        for row, topic in enumerate(result.topics):
            name = collection.topic_name(topic)
            for column, measure in enumerate(measures):
                value = result.values[row, column]
                if measure.family in ("GMAP", "GMBpref"):
                    value = math.log(max(value, 1e-5))  # trec_eval's per-topic gm_map is the log
                expected = reference[name][printed_name(measure, 9)]
                if measure.family in ("GMAP", "GMBpref"):
                    assert value == pytest.approx(expected, abs=1e-12), (tag, name, str(measure))
                else:  # bit for bit: terms are added in trec_eval's order and divided as it divides
                    same = value == expected or (math.isnan(value) and math.isnan(expected))  # 0/0 under -J
                    assert same, (tag, name, str(measure), value, expected)
                compared += 1
        # Aggregates: arithmetic means over evaluated topics, sums for counts, geometric mean for GMAP.
        for column, measure in enumerate(measures):
            per_topic = np.array([reference[t][printed_name(measure, 9)] for t in reference])
            kind = measure.spec.aggregate
            expected = (
                per_topic.sum()
                if kind == "sum"
                else (math.exp(per_topic.mean()) if kind == "gmean" else per_topic.mean())
            )
            assert result.aggregates[column] == pytest.approx(expected, abs=1e-9, nan_ok=True), (tag, str(measure))
    return compared


REUSED = "distinct-keys-of-a-reused-run-set"


SCOPED = "table-of-documents-ranked-under-one-topic"


@pytest.fixture(params=["search-cells-in-qrels", SCOPED, "document-table", "place-qrels-in-run-index", REUSED])
def label_lookup(request, monkeypatch):
    """Every way the engine finds labels: large evaluations take a table by document id (with no topic to compare
    when each id is ranked under one topic, as file ids are), or the index when ids are sparse; a worker's prepared
    rankings (a run set evaluated again and again) take their distinct keys."""
    from measures import labelling, runset

    monkeypatch.setattr(labelling, "INDEX_LOOKUP_RATIO", 10**9 if request.param == "search-cells-in-qrels" else 0)
    monkeypatch.setattr(labelling, "DOC_TABLE_RATIO", 10**9 if request.param == "document-table" else 0)
    monkeypatch.setattr(runset, "SCOPED_TABLE_RATIO", 10**9 if request.param == SCOPED else 0)
    return request.param


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("level", [1, 2])
def test_every_trec_eval_measure_matches_trec_eval_on_generated_collections(seed, level, label_lookup):
    qrels, runs = generated_collection(seed, runs=6)
    assert _compare(qrels, runs, level, reused=label_lookup == REUSED) > 100


@pytest.mark.parametrize("seed", range(4))
def test_documents_judged_for_several_topics_are_labelled_per_topic(seed, label_lookup):
    """Database ids name a document once for every topic, so one document carries a label per topic."""
    qrels, runs = generated_collection(seed, runs=6)
    assert _compare(qrels, runs, 1, shared_ids=True, reused=label_lookup == REUSED) > 100


@pytest.mark.parametrize("seed", range(4))
def test_judged_documents_only_matches_trec_eval_minus_j(seed):
    qrels, runs = generated_collection(seed, runs=6)
    assert _compare(qrels, runs, 1, judged_only=True) > 100


@pytest.mark.parametrize("name", ["Rprec_mult.0.5", "Rprec_mult.1.5", "11pt_avg.0.25", "set_F.2.0"])
def test_measures_with_a_parameter_match_trec_eval(name):
    qrels, runs = generated_collection(6)
    _compare(qrels, runs, 1, parse_measures(name), [name])


def test_set_f_parameter_is_trec_evals_beta_squared():
    qrels, runs = generated_collection(3)
    measures = parse_measures("set_F.0.25")
    _compare(qrels, runs, 1, measures, ["set_F.0.25"])


def test_depth_cut_matches_trec_eval_on_truncated_runs():
    qrels, runs = generated_collection(5)
    collection = TrecReader()
    ours = evaluate(collection.qrels(qrels), [collection.run(t, r) for t, r in runs.items()], ["map", "P.10"], depth=7)
    truncated = {}
    for tag, run in runs.items():
        truncated[tag] = {}
        for topic, scores in run.items():
            ordered = sorted(scores.items(), key=lambda kv: (kv[1], kv[0]), reverse=True)[:7]
            truncated[tag][topic] = dict(ordered)
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, {"map", "P.10"})
    for tag, run in truncated.items():
        reference = evaluator.evaluate(run)
        expected_map = np.mean([v["map"] for v in reference.values()])
        assert ours.aggregate(tag, "map") == pytest.approx(expected_map, abs=1e-12)


def test_files_with_misleading_rank_column_give_the_same_numbers_as_dicts(tmp_path):
    qrels, runs = generated_collection(7)
    (tmp_path / "qrels").write_text("\n".join(qrels_lines(qrels)) + "\n")
    (tmp_path / "run").write_text("\n".join(run_lines("run0", runs["run0"])) + "\n")
    from_files = TrecReader()
    a = evaluate(from_files.qrels_from_file(tmp_path / "qrels"), [from_files.run_from_file(tmp_path / "run")], ["AP"])
    from_dicts = TrecReader()
    b = evaluate(from_dicts.qrels(qrels), [from_dicts.run("run0", runs["run0"])], ["AP"])
    assert a.aggregate("run0", "AP") == pytest.approx(b.aggregate("run0", "AP"), abs=1e-15)


def test_ties_break_by_docno_descending_in_byte_order():
    collection = TrecReader()
    qrels = collection.qrels({"q": {"doc9": 1, "doc10": 0, "a": 0, "B": 1, "123": 0, "1234": 1}})
    run = collection.run("r", {"q": {"doc10": 1.0, "doc9": 1.0, "B": 0.5, "a": 0.5, "123": 0.0, "1234": 0.0}})
    order = [collection.docs.names[d] for d in run.ranking(collection.topics.get("q"))]
    assert order == ["doc9", "doc10", "a", "B", "1234", "123"]
    ours = evaluate(qrels, [run], ["P.1", "recip_rank"])
    reference = pytrec_eval.RelevanceEvaluator(
        {"q": {"doc9": 1, "doc10": 0, "a": 0, "B": 1, "123": 0, "1234": 1}}, {"P.1", "recip_rank"}
    ).evaluate({"q": {"doc10": 1.0, "doc9": 1.0, "B": 0.5, "a": 0.5, "123": 0.0, "1234": 0.0}})
    assert ours.value("r", collection.topics.get("q"), "P.1") == reference["q"]["P_1"] == 1.0


def test_complete_flag_counts_missing_topics_as_zero():
    collection = TrecReader()
    qrels = collection.qrels({"1": {"a": 1}, "2": {"b": 1}})
    run = collection.run("r", {"1": {"a": 1.0}})
    normal = evaluate(qrels, [run], ["AP", "GMAP", "num_rel"])
    complete = evaluate(qrels, [run], ["AP", "GMAP", "num_rel"], complete=True)
    assert normal.aggregate("r", "AP") == 1.0
    assert complete.aggregate("r", "AP") == 0.5
    assert complete.aggregate("r", "GMAP") == pytest.approx(math.exp((0 + math.log(1e-5)) / 2))
    assert complete.aggregate("r", "num_rel") == 2
    assert list(complete.runs["r"].topics) == [collection.topics.get("1")]  # per-topic output: evaluated topics


def test_reevaluating_one_topic_gives_the_values_of_a_full_evaluation():
    qrels, runs = generated_collection(9)
    collection = TrecReader()
    prepared_qrels = collection.qrels(qrels)
    runset = RunSet([collection.run(t, r) for t, r in runs.items()])
    full = evaluate(prepared_qrels, runset, MEASURES)
    topic = collection.topics.get("q4")
    one = evaluate(prepared_qrels, runset, MEASURES, topics=[topic])
    assert any(len(result.topics) for result in one.runs.values())
    for tag, result in one.runs.items():
        if topic not in full.runs[tag].topics:
            assert len(result.topics) == 0  # this run did not retrieve for the topic
            continue
        assert list(result.topics) == [topic]
        row = list(full.runs[tag].topics).index(topic)
        np.testing.assert_allclose(result.values[0], full.runs[tag].values[row], atol=0, rtol=0)


def test_a_document_ranked_under_one_topic_takes_that_topics_label_not_another_topics(label_lookup):
    """Database ids: document 5 is ranked for topic 1 alone but judged relevant for topic 2 only, so topic 1's
    ranking holds an unjudged document; document 6, ranked for topic 2 alone, is judged for both."""
    qrels = PreparedQrels.from_mapping({1: {6: 1, 7: 0}, 2: {5: 1, 6: 0}})
    runs = RunSet([PreparedRun.from_rankings("r", {1: [5, 7], 2: [6, 9]})], reused=label_lookup == REUSED)
    result = evaluate(qrels, runs, ["P@1", "P@2", "NumRelRet", "Bpref"])
    assert result.value("r", 1, "P@1") == 0.0 and result.value("r", 1, "NumRelRet") == 0
    assert result.value("r", 2, "P@2") == 0.0 and result.value("r", 2, "NumRelRet") == 0


def test_file_ids_are_ranked_under_one_topic_and_database_ids_may_not_be():
    reader = TrecReader()
    runs = RunSet([reader.run("r", {"1": {"a": 1.0, "b": 0.5}, "2": {"a": 2.0}})])
    assert runs.topic_of_doc is not None  # "a" of topic 1 and "a" of topic 2 are two ids
    shared = RunSet([PreparedRun.from_rankings("r", {1: [5, 7], 2: [5]})])
    assert shared.topic_of_doc is None
