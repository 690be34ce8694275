"""Circularity (#48, 1): a run may declare the model family it uses and a judge has its own; runs that share the
judge's family are marked on the leaderboard, and the judge's taus and holes-filled board are also given without
them (Clarke and Dietz, 2024: a judge favours systems built on its own model)."""

from __future__ import annotations

import pytest

from evaluation.machines.core import ranking_agreement, same_family
from evaluation.machines.selectors import judge_verification
from evaluation.selectors import leaderboard
from judging import services
from judging.machines import services as machine_judges
from judging.models import PoolItem, Run
from tests.api_clients import role_clients
from tests.factories import make_collection, make_user


def test_families_match_as_people_write_them_and_an_undeclared_one_matches_nothing():
    assert same_family("GPT-4o", "gpt 4o") and same_family("llama_3", "Llama-3")
    assert not same_family("", "") and not same_family("gpt-4o", "gpt-4o-mini")


def test_taus_leave_out_the_named_runs():
    people = {"a": 0.9, "b": 0.7, "c": 0.5, "own": 0.1}
    machine = {"a": 0.8, "b": 0.6, "c": 0.4, "own": 0.95}  # the judge puts its own model's run first
    everything = ranking_agreement(people, machine)
    assert everything["kendall_tau"] == pytest.approx(0.0)  # 3 concordant, 3 discordant pairs of 6
    assert ranking_agreement(people, machine, leave_out={"own"}) == {"kendall_tau": 1.0, "tau_ap": 1.0, "runs": 3}
    assert ranking_agreement(people, machine, leave_out={"own", "a", "b"})["kendall_tau"] is None


@pytest.mark.django_db
def test_runs_sharing_the_judges_family_are_marked_and_its_figures_given_without_them():
    collection = make_collection(max_grade=3, topics=2, documents=10, runs=3, depth=5)
    own = Run.objects.filter(collection=collection).order_by("tag").first()
    Run.objects.filter(pk=own.pk).update(model_family="GPT-4o")  # as its import declared it
    person = make_user("assessor")
    pool = list(PoolItem.objects.filter(topic__collection=collection).values_list("topic_id", "document_id"))
    services.judgments_record_bulk(labels={(person, t, d): i % 4 for i, (t, d) in enumerate(pool[::2])})
    judge = machine_judges.machine_judge_create(
        collection=collection, name="bm25", provider="lexical", model_family="gpt-4o"
    )
    machine_judges.machine_judge_run(judge=judge)
    rows = {r["run"].tag: r["shares_family_with"] for r in leaderboard(collection=collection, measures=["AP"])}
    assert rows[own.tag] == ["bm25"] and all(v == [] for tag, v in rows.items() if tag != own.tag)
    report = judge_verification(judge=judge, reveal=True)
    circular = report["circularity"]
    assert circular["runs"] == [own.tag] and circular["family"] == "gpt-4o"
    assert circular["all"]["machine"]["runs"] == 3 and circular["without"]["machine"]["runs"] == 2
    assert [r["run"] for r in report["leaderboard"] if r["shares_family"]] == [own.tag]


@pytest.mark.django_db
def test_a_run_import_declares_its_family_on_the_api_and_the_command_line(tmp_path, django_capture_on_commit_callbacks):
    from django.core.files.uploadedfile import SimpleUploadedFile
    from django.core.management import call_command

    collection = make_collection(topics=1, documents=3, runs=0)
    topic = collection.topics.get()
    docnos = list(collection.documents.values_list("docno", flat=True))
    line = "".join(f"{topic.number} Q0 {d} {i + 1} {9 - i} {{tag}}\n" for i, d in enumerate(docnos))
    with django_capture_on_commit_callbacks(execute=True):
        answer = role_clients()["admin"].post(
            f"/api/collections/{collection.id}/imports/",
            {"kind": "runs", "file": SimpleUploadedFile("a.run", line.format(tag="api").encode()),
             "model_family": "llama-3"},
        )  # fmt: skip
    assert answer.status_code == 202
    path = tmp_path / "b.run"
    path.write_text(line.format(tag="cli"))
    call_command("import_runs", str(collection.id), str(path), "--model-family", "qwen-2")
    families = dict(Run.objects.filter(collection=collection).values_list("tag", "model_family"))
    assert families == {"api": "llama-3", "cli": "qwen-2"}


def test_over_and_under_rating_are_counted_each_way_with_intervals():
    from evaluation.machines.core import rating_bias

    pairs = [(3, 0), (2, 1), (0, 0), (1, 0), (0, 2), (3, 3)]  # (machine, people), relevant from 2
    bias = rating_bias(pairs, threshold=2)
    assert (bias["over_rating"]["items"], bias["over_rating"]["errors"]) == (4, 2)  # people: 0, 1, 0, 0
    assert (bias["under_rating"]["items"], bias["under_rating"]["errors"]) == (2, 1)  # people: 2, 3
    assert bias["over_rating"]["low"] < 0.5 < bias["over_rating"]["high"]


def test_kendall_at_10_looks_at_the_systems_people_rank_best():
    from evaluation.machines.core import kendall_at_k

    people = {f"r{i:02}": 1.0 - i / 20 for i in range(20)}  # r00 best
    machine = dict(people)
    machine["r00"], machine["r01"] = people["r01"], people["r00"]  # the top two swapped; the tail untouched
    for i in range(10, 20):
        machine[f"r{i:02}"] = people[f"r{29 - i:02}"]  # the bottom ten reversed: outside the top 10
    # in the top 10, one discordant pair of 45: tau = (44 - 1) / 45
    assert kendall_at_k(people, machine) == pytest.approx(43 / 45)


def test_per_topic_agreement_lists_the_worst_topics_first():
    from evaluation.machines.core import per_topic_agreement

    found = per_topic_agreement({"1": [(3, 3), (0, 0)], "2": [(3, 0), (0, 3), (2, 2)], "3": [(0, 3)]}, threshold=2)
    assert [t["topic"] for t in found["worst"]] == ["3", "2", "1"]
    assert found["worst"][1]["agreement"] == pytest.approx(1 / 3)


@pytest.mark.django_db
def test_the_circularity_taus_over_all_runs_are_the_overall_taus():
    collection = make_collection(max_grade=3, topics=2, documents=10, runs=3, depth=5)
    Run.objects.filter(collection=collection, tag=Run.objects.filter(collection=collection).first().tag).update(
        model_family="llama-3"
    )
    person = make_user("assessor")
    pool = list(PoolItem.objects.filter(topic__collection=collection).values_list("topic_id", "document_id"))
    services.judgments_record_bulk(labels={(person, t, d): (i * 7) % 4 for i, (t, d) in enumerate(pool[::2])})
    judge = machine_judges.machine_judge_create(
        collection=collection, name="bm25", provider="lexical", model_family="Llama 3"
    )
    machine_judges.machine_judge_run(judge=judge)
    report = judge_verification(judge=judge, reveal=True)
    overall = report["circularity"]["all"]["machine"]
    assert (overall["kendall_tau"], overall["tau_ap"]) == (
        report["ranking"]["kendall_tau"],
        report["ranking"]["tau_ap"],
    )
