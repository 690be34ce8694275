"""The judgment -> stored metrics pipeline (embedded mode: tasks run in-process after commit).

Whatever sequence of changes happens, the stored values must equal a from-scratch evaluation of the final judgments,
by our engine and by trec_eval itself.
"""

from __future__ import annotations

import contextlib
import math
from datetime import timedelta
from unittest import mock

import pytest
import pytrec_eval
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from evaluation import services as evaluation_services
from evaluation.models import AgreementReport, CollectionState, RunAggregates, TopicState, TopicValues
from evaluation.services import staleness
from judging import selectors, services
from judging.jobs.models import Job, JobState
from measures import PreparedQrels, PreparedRun, as_measures, evaluate, totals
from measures.consensus import consensus
from tests.factories import make_collection, make_user, stored_aggregates, stored_values

pytestmark = pytest.mark.django_db(transaction=True)  # real commits, so on_commit recomputes run

TREC_NAMES = {"AP": "map", "P@5": "P_5", "nDCG@10": "ndcg_cut_10", "RR": "recip_rank", "Rprec": "Rprec"}


def from_scratch(collection):
    """{(run id, topic id, measure): value} evaluated now from the stored judgments, and the pytrec_eval view."""
    measures = as_measures(collection.measures)
    expected, qrels_all = {}, {}
    for topic in collection.topics.all():
        judgments = selectors.topic_judgments(topic_id=topic.id)
        labels = consensus(
            judgments,
            collection.consensus_method,
            primary=collection.primary_assessor_id,
            adjudicated=selectors.topic_adjudications(topic_id=topic.id),
            categories=range(collection.max_grade + 1),
        ).labels
        if not labels:
            continue
        qrels_all[str(topic.id)] = {str(d): g for d, g in labels.items()}
        rankings = selectors.topic_rankings(topic_id=topic.id)
        result = evaluate(
            PreparedQrels.from_mapping({topic.id: labels}),
            [PreparedRun.from_rankings(str(r), {topic.id: docs}) for r, docs in rankings.items()],
            measures,
            relevance_level=collection.relevance_threshold,
            max_grade=collection.max_grade,
            collection_size=collection.documents.count(),
        )
        for tag, run_result in result.runs.items():
            for measure, value in zip(measures, run_result.values[0], strict=True):
                expected[(int(tag), topic.id, str(measure))] = None if math.isnan(value) else float(value)
    return expected, qrels_all


def stored(collection):
    return stored_values(collection)


def assert_matches_trec_eval(collection, qrels):
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, set(TREC_NAMES.values()), relevance_level=1)
    ours_stored = stored(collection)
    for run in collection.runs.all():
        run_dict = {}
        for topic_id, docs in selectors.topic_rankings_by_run(run_id=run.id).items():
            run_dict[str(topic_id)] = {str(d): float(len(docs) - i) for i, d in enumerate(docs.tolist())}
        reference = evaluator.evaluate(run_dict)
        for topic, values in reference.items():
            for ours, theirs in TREC_NAMES.items():
                value = ours_stored[(run.id, int(topic), ours)]
                assert value == pytest.approx(values[theirs], abs=1e-12), (run.tag, topic, ours)


operations = st.lists(
    st.tuples(
        st.integers(0, 2),  # assessor
        st.integers(0, 1),  # topic
        st.integers(0, 7),  # pool item
        st.one_of(st.none(), st.integers(0, 3)),  # grade; None deletes the judgment
    ),
    min_size=1,
    max_size=25,
)


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    operations=operations,
    method=st.sampled_from(["majority", "median", "mean", "dawid_skene"]),
    together=st.booleans(),
)
def test_after_any_sequence_of_changes_stored_values_equal_a_from_scratch_evaluation(operations, method, together):
    """`together`: the recomputes wait (a busy worker) while half the changes land, then one recompute takes both
    topics along and stores them in one transaction, the runs' totals moved for both at once; then the other half."""
    collection = make_collection(max_grade=3, threshold=1, topics=2, documents=10, runs=3, depth=8)
    collection = services.collection_settings_update(
        collection=collection, consensus_method=method, measures=[*collection.measures, *TREC_NAMES]
    )
    people = [make_user() for _ in range(3)]
    topics = list(collection.topics.order_by("number"))
    for person in people:
        for topic in topics:
            services.assignment_create(assessor=person, topic=topic)
    items = {t.id: list(t.pool_items.order_by("-priority", "id")) for t in topics}
    halves = [operations[: len(operations) // 2], operations[len(operations) // 2 :]] if together else [operations]
    for half in halves:
        with mock.patch.object(staleness, "_enqueue", return_value=False) if together else contextlib.nullcontext():
            for who, t, i, grade in half:
                topic = topics[t]
                item = items[topic.id][i % len(items[topic.id])]
                if grade is None:
                    services.judgment_delete(assessor=people[who], topic=topic, document=item.document)
                else:
                    services.judgment_record(assessor=people[who], topic=topic, document=item.document, grade=grade)
        if together:
            evaluation_services.topic_recompute(topic_id=topics[0].id)
    expected, qrels = from_scratch(collection)
    values = stored(collection)
    assert values == pytest.approx(expected, abs=1e-12)
    for state in TopicState.objects.filter(topic__collection=collection):
        assert state.fresh
    if method != "dawid_skene":  # trec_eval reads the same consensus qrels; D-S is checked above against ours
        assert_matches_trec_eval(collection, qrels)
    measures = as_measures(collection.measures)
    aggregates = stored_aggregates(collection)
    for run in collection.runs.all():
        for measure in measures:
            per_topic = [v for (r, _, m), v in expected.items() if r == run.id and m == str(measure)]
            run_value, topics = aggregates[(run.id, str(measure))]
            if not per_topic:
                assert run_value is None and topics == 0
                continue
            from measures import aggregate

            want = aggregate(measure, [math.nan if v is None else v for v in per_topic])
            assert run_value == pytest.approx(None if math.isnan(want) else want, abs=1e-12)
            assert topics == len(per_topic)
            # The totals moved topic by topic end exactly (bit for bit) where summing the stored values gives.
            mine = [v for (r, _, m), v in values.items() if r == run.id and m == str(measure)]
            assert run_value == totals.aggregate_exactly(measure.spec.aggregate, mine)


def judge_all(collection, people, grades):
    topic = collection.topics.get(number="1")
    for person in people:
        services.assignment_create(assessor=person, topic=topic)
    for item, per_person in zip(topic.pool_items.order_by("-priority", "id"), grades, strict=False):
        for person, grade in zip(people, per_person, strict=True):
            services.judgment_record(assessor=person, topic=topic, document=item.document, grade=grade)
    return topic


def test_changing_the_threshold_recomputes_and_records_the_settings_used():
    collection = make_collection(max_grade=3, threshold=1, topics=1, documents=6, runs=2, depth=4)
    topic = judge_all(collection, [make_user()], [[1], [3], [0], [2]])
    before = TopicValues.objects.get(topic=topic, measure="AP")
    assert "rel>=1" in before.settings_key
    collection = services.collection_settings_update(collection=collection, relevance_threshold=3)
    after = TopicValues.objects.get(topic=topic, measure="AP")
    assert "rel>=3" in after.settings_key and after.generation > before.generation
    assert stored(collection) == pytest.approx(from_scratch(collection)[0], abs=1e-12)
    assert RunAggregates.objects.filter(collection=collection, qrels_version__gt=0).exists()


def test_switching_to_the_primary_assessor_and_adjudicating_change_the_qrels():
    collection = make_collection(max_grade=1, threshold=1, topics=1, documents=6, runs=2, depth=4)
    primary, other, third = make_user(), make_user(), make_user()
    topic = judge_all(collection, [primary, other, third], [[1, 0, 0], [0, 1, 1], [1, 1, 1], [0, 0, 0]])
    first_item = topic.pool_items.order_by("-priority", "id").first()
    collection = services.collection_settings_update(
        collection=collection, consensus_method="primary", primary_assessor=primary
    )
    assert stored(collection) == pytest.approx(from_scratch(collection)[0], abs=1e-12)
    services.adjudication_record(topic=topic, document=first_item.document, grade=0, adjudicator=make_user("admin"))
    expected, _ = from_scratch(collection)
    assert stored(collection) == pytest.approx(expected, abs=1e-12)
    labels = consensus(
        selectors.topic_judgments(topic_id=topic.id),
        "primary",
        primary=primary.id,
        adjudicated=selectors.topic_adjudications(topic_id=topic.id),
    ).labels
    assert labels[first_item.document_id] == 0  # the adjudication beat the primary assessor's 1


def test_each_topic_stores_a_full_agreement_report_and_the_collection_one_follows_without_a_sweep():
    # The embedded mode has no beat: the collection-wide agreement must follow the judgments by itself.
    collection = make_collection(max_grade=3, threshold=2, topics=1, documents=8, runs=3, depth=6)
    a, b = make_user(), make_user()
    judge_all(collection, [a, b], [[3, 2], [0, 1], [2, 0], [1, 1], [3, 3], [0, 0]])
    report = AgreementReport.objects.get(collection=collection, topic__isnull=False).report
    assert set(report["against_consensus"]) == {str(a.id), str(b.id)}
    pair = "|".join(sorted([str(a.id), str(b.id)]))  # assessors are named in text order: "1000" before "999"
    assert report["pairwise"]["confusion"][pair][3][3] == 1
    assert set(report["system_ranking"]["scores"]["consensus"]) == {str(r.id) for r in collection.runs.all()}
    state = CollectionState.objects.get(pk=collection.pk)
    assert state.qrels_version == 12
    assert not state.dirty and state.computed_generation == state.generation
    overall = AgreementReport.objects.get(collection=collection, topic__isnull=True).report
    assert overall["graded"]["items"] == 6 and "system_ranking" in overall


def test_a_claim_abandoned_by_a_dead_worker_is_swept_and_recomputed():
    collection = make_collection(topics=1, runs=2)
    topic = judge_all(collection, [make_user()], [[1], [0]])
    TopicState.objects.filter(topic=topic).update(dirty=True, generation=99)
    from config.sql import claim

    assert claim(TopicState, topic.id) == 99  # a worker took it on, then died before storing
    assert not TopicState.objects.get(topic=topic).fresh
    # resend_after 0: whatever the broker holds (other tests may leave messages), an abandoned claim is sent again
    assert evaluation_services.stale_topics_sweep(older_than=timedelta(0), resend_after=timedelta(0)) == 1
    assert TopicState.objects.get(topic=topic).fresh


def test_deleting_a_run_removes_its_values():
    collection = make_collection(topics=1, runs=2)
    judge_all(collection, [make_user()], [[1], [0], [1]])
    run1 = collection.runs.get(tag="run1")
    services.run_delete(run=run1)
    assert all(run1.id not in row.runs for row in TopicValues.objects.filter(topic__collection=collection))
    run0 = collection.runs.get(tag="run0").id
    assert all(row.runs == [run0] for row in RunAggregates.objects.filter(collection=collection))
    assert {run for run, _ in stored_aggregates(collection)} == {run0}


def test_a_full_recompute_reports_progress_to_its_job(django_capture_on_commit_callbacks):
    collection = make_collection(topics=3, runs=2)
    judge_all(collection, [make_user()], [[1], [0]])
    with django_capture_on_commit_callbacks(execute=True):
        job = evaluation_services.collection_recompute_start(collection=collection)
    job.refresh_from_db()
    assert (job.state, job.done, job.total, job.percent) == (JobState.DONE, 4, 4, 100)
    assert Job.objects.get(pk=job.pk).result == {"topics": 3}


def test_the_recompute_command_shows_progress_and_brings_every_topic_up_to_date(capsys):
    from django.core.management import call_command

    collection = make_collection(topics=3, runs=2)
    judge_all(collection, [make_user()], [[1], [0]])
    TopicState.objects.filter(topic__collection=collection).update(dirty=True)
    call_command("recompute", collection.name)
    out, err = capsys.readouterr()
    assert "Recomputed 3 topics" in out and "topic" in err  # tqdm's bar goes to stderr
    assert all(s.fresh for s in TopicState.objects.filter(topic__collection=collection))


def test_saving_a_collection_in_the_admin_recomputes_when_an_evaluation_setting_changed(client):
    collection = make_collection(max_grade=3, threshold=1, topics=1, runs=2)
    topic = judge_all(collection, [make_user()], [[1], [3]])
    admin_user = make_user("admin")
    admin_user.is_staff = admin_user.is_superuser = True
    admin_user.save()
    client.force_login(admin_user)
    generation = TopicState.objects.get(topic=topic).generation
    from django.forms.models import model_to_dict

    data = {k: ("" if v is None else v) for k, v in model_to_dict(collection).items() if k != "id"}
    data.update(relevance_threshold=2, measures='["AP", "P@5"]', primary_assessor="")
    data.update({"grades-TOTAL_FORMS": 0, "grades-INITIAL_FORMS": 0})
    response = client.post(f"/admin/judging/collection/{collection.id}/change/", data)
    assert response.status_code == 302, response.content.decode()[:2000]
    state = TopicState.objects.get(topic=topic)
    assert state.generation > generation and state.fresh
    stored = set(TopicValues.objects.filter(topic=topic).values_list("measure", flat=True))
    assert stored == {"AP", "P@5", "Judged@10"}  # the chosen measures, and the coverage every page shows


def test_a_full_recompute_killed_half_way_is_taken_up_by_the_sweep(monkeypatch):
    collection = make_collection(topics=2, runs=2)
    judge_all(collection, [make_user()], [[1], [0]])
    from evaluation.services import recompute

    def killed(**kwargs):
        raise SystemExit("worker killed")

    monkeypatch.setattr(recompute, "topic_recompute", killed)
    with pytest.raises(SystemExit):
        evaluation_services.collection_recompute(collection_id=collection.id)
    monkeypatch.undo()
    state = CollectionState.objects.get(pk=collection.pk)
    assert state.dirty and state.dirty_since is not None  # a stale mark the sweep can see
    evaluation_services.stale_topics_sweep(
        older_than=timedelta(0), resend_after=timedelta(0), agreement_delay=timedelta(0)
    )
    assert CollectionState.objects.get(pk=collection.pk).fresh
    assert all(s.fresh for s in TopicState.objects.filter(topic__collection=collection))


def test_after_one_failed_publish_saves_do_not_wait_on_the_broker_for_a_while(monkeypatch):
    from evaluation.services import staleness

    calls = []

    class Down:
        def apply_async(self, **kwargs):
            calls.append(kwargs)
            raise ConnectionError("broker down")

    monkeypatch.setattr(staleness, "_broker_down_until", [0.0])
    from celery import current_app

    monkeypatch.setitem(current_app.tasks, "evaluation.tasks.recompute_topic", Down())
    assert staleness._enqueue("recompute_topic", 1) is False
    assert staleness._enqueue("recompute_topic", 2) is False  # not tried: the broker was just found down
    assert len(calls) == 1 and calls[0]["retry"] is False
    assert staleness._enqueue("recompute_topic", 3, sweeping=True) is False  # the sweep always tries
    assert len(calls) == 2


@pytest.mark.django_db
def test_the_settings_key_names_every_setting_a_stored_value_depends_on():
    from evaluation.selectors import EVALUATION_SETTINGS, VALUE_SETTINGS, settings_key
    from judging.models import Collection
    from judging.sources.services import label_source_set

    assert set(VALUE_SETTINGS) <= set(EVALUATION_SETTINGS)
    collection = Collection.objects.create(name="keyed", max_grade=3)
    other = make_user("assessor")
    changed = {
        "relevance_threshold": 2,
        "max_grade": 2,
        "consensus_method": "median",
        "primary_assessor": other,
        "collection_size": 1000,
        "trec_eval_version": 9,
    }
    assert set(changed) | {"label_sources"} == set(VALUE_SETTINGS)
    for name, value in changed.items():
        before = settings_key(collection)
        setattr(collection, name, value)
        assert settings_key(collection) != before, name
    before = settings_key(collection)
    label_source_set(collection=collection, account=other, role="advisory")
    assert settings_key(collection) != before, "label_sources"


def test_a_full_recompute_job_run_again_resumes_from_the_topics_it_already_computed(monkeypatch):
    """A job whose worker died is queued again (jobs' heartbeat); its second run redoes only what is left."""
    from django.utils import timezone

    from evaluation.services import recompute as recompute_module

    collection = make_collection(topics=4, runs=2)
    evaluation_services.collection_recompute(collection_id=collection.id)
    started = timezone.now()
    topics = list(collection.topics.order_by("id"))
    done = []
    compute = recompute_module._topic

    def dies_after_two(topic_id, generation, phases):
        if len(done) == 2:
            raise KeyboardInterrupt("the worker was killed")
        done.append(topic_id)
        return compute(topic_id, generation, phases)

    monkeypatch.setattr(recompute_module, "_topic", dies_after_two)
    with pytest.raises(KeyboardInterrupt):
        evaluation_services.collection_recompute(collection_id=collection.id, since=started)
    assert done == [topics[0].id, topics[1].id]
    monkeypatch.setattr(recompute_module, "_topic", lambda *args: (done.append(args[0]), compute(*args))[1])
    evaluation_services.collection_recompute(collection_id=collection.id, since=started)
    assert done[2:] == [topics[2].id, topics[3].id]  # the first two are the checkpoint: not computed again
    assert all(TopicState.objects.get(topic=t).fresh for t in topics)


def test_runs_totals_lost_in_a_crash_are_counted_again_by_the_sweep_from_the_stored_values():
    # PostgreSQL empties the unlogged totals table when it recovers from a crash; the topics' values survive.
    collection = make_collection(topics=1, runs=3)
    judge_all(collection, [make_user()], [[1], [0], [2]])
    before = stored_aggregates(collection)
    values = TopicValues.objects.filter(topic__collection=collection).count()
    RunAggregates.objects.filter(collection=collection).delete()
    assert not selectors_freshness(collection)["fresh"]

    evaluation_services.stale_topics_sweep(older_than=timedelta(0), resend_after=timedelta(0))
    assert stored_aggregates(collection) == before
    assert TopicValues.objects.filter(topic__collection=collection).count() == values
    assert selectors_freshness(collection)["fresh"]


def test_a_collection_still_being_computed_is_left_to_its_recomputes_not_recounted():
    from evaluation.selectors import collections_with_lost_totals

    collection = make_collection(topics=1, runs=2)
    topic = judge_all(collection, [make_user()], [[1], [0]])
    RunAggregates.objects.filter(collection=collection).delete()
    assert collections_with_lost_totals() == [collection.id]
    TopicState.objects.filter(topic=topic).update(dirty=True)
    assert collections_with_lost_totals() == []


def selectors_freshness(collection):
    from evaluation.selectors import collection_freshness

    return collection_freshness(collection=collection)
