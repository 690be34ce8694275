"""A new pooling strategy or judging order is one registry entry beside its code: a toy one, registered here, shows
in every place a person or a script chooses one (the pages, the API, the commands' --help) and is dispatched to."""

from __future__ import annotations

import io
from contextlib import redirect_stdout

import pytest
from django.core.management import call_command

from judging import services
from judging.models import Collection, PoolItem
from judging.ordering.core import orders as ordering
from judging.ordering.core import pool_strategies
from tests.api_clients import api_as
from tests.factories import make_collection, make_user

pytestmark = pytest.mark.django_db


@pytest.fixture
def toy_strategy():
    def first_of_each_run(request):
        firsts = {ranking[0] for ranking in request.rankings.values() if ranking} - set(request.skip)
        return pool_strategies._candidates(request.rankings, sorted(firsts), 1, lambda i, d: float(-i))

    strategy = pool_strategies.register(
        pool_strategies.PoolStrategy("firsts", "Each run's first document (a toy)", "depth", first_of_each_run)
    )
    yield strategy
    pool_strategies.REGISTRY.pop("firsts")


def test_a_registered_pool_strategy_is_offered_everywhere_and_used(client, toy_strategy, capsys):
    collection = make_collection(topics=2, documents=10, runs=3, depth=6)
    PoolItem.objects.filter(topic__collection=collection).delete()
    admin = make_user("admin")
    client.force_login(admin)
    page = client.get(f"/judging/collections/{collection.id}/pool/").content.decode()
    assert 'value="firsts"' in page and "Each run&#x27;s first document (a toy)" in page
    preview = api_as(admin).post(
        f"/api/collections/{collection.id}/pool/", {"strategy": "firsts", "size": 1, "preview": True}, format="json"
    )
    assert preview.status_code == 200, preview.json()
    report = services.pool_build(collection=collection, strategy="firsts", depth=1)
    assert report.added == PoolItem.objects.filter(topic__collection=collection).count() > 0
    assert all(item.best_rank == 1 for item in PoolItem.objects.filter(topic__collection=collection))
    with pytest.raises(SystemExit):
        call_command("build_pool", "--help")
    assert "firsts: Each run's first document (a toy)" in " ".join(capsys.readouterr().out.split())


@pytest.fixture
def toy_order():
    class LastFirst(ordering.JudgingOrder):
        """The pool's last document first (a toy)."""

        name = "last_first"

        def _pick(self):
            unlabelled = [d for d in self.pool if d not in self.labels]
            return unlabelled[-1] if unlabelled else None

    ordering.register(LastFirst, "Last first (a toy)")
    yield LastFirst
    ordering.REGISTRY.pop("last_first")


def test_a_registered_judging_order_is_offered_everywhere_and_used(client, toy_order):
    client.force_login(make_user("admin"))
    form = client.get("/judging/collections/new/").content.decode()
    assert 'value="last_first"' in form and "Last first (a toy)" in form
    collection = services.collection_create(name="toy-order", judging_order="last_first")
    collection.full_clean()  # the model's choices accept it, with no migration
    assert Collection.objects.get(pk=collection.pk).judging_order == "last_first"
    order = ordering.judging_order("last_first", {"r": [1, 2, 3]}, [1, 2, 3])
    assert isinstance(order, toy_order)
    out = io.StringIO()
    with redirect_stdout(out), pytest.raises(SystemExit):
        from judging.ordering.__main__ import main

        main(["--help"])
    assert "last_first" in out.getvalue()


def test_every_kind_of_job_is_registered_with_its_result_and_a_toy_kind_shows_its_own(client, tmp_path, settings):
    from evaluation.analysis.trial_runs import TRIAL_TASK
    from evaluation.online.services import IMPORT_TASK as LOG_TASK
    from evaluation.services.recompute import RECOMPUTE_TASK
    from judging.imports.services import IMPORT_TASK
    from judging.jobs import kinds as job_kinds
    from judging.jobs.models import Job, JobState
    from judging.services.pools import POOL_TASK

    for task in (IMPORT_TASK, POOL_TASK, RECOMPUTE_TASK, LOG_TASK, TRIAL_TASK):
        assert job_kinds.REGISTRY[task].result_template, task
    (tmp_path / "toy").mkdir()
    (tmp_path / "toy" / "_toy_result.html").write_text('<p id="toy-result">{{ r.answer }} found</p>')
    settings.TEMPLATES = [{**settings.TEMPLATES[0], "DIRS": [*settings.TEMPLATES[0]["DIRS"], tmp_path]}]
    job_kinds.register(job_kinds.JobKind("tests.toy_task", "Toy", "toy/_toy_result.html"))
    try:
        collection = make_collection(topics=1)
        job = Job.objects.create(kind="toy", task="tests.toy_task", collection=collection, state=JobState.DONE)
        Job.objects.filter(pk=job.pk).update(result={"answer": 42})
        client.force_login(make_user("admin"))
        assert '<p id="toy-result">42 found</p>' in client.get(f"/judging/jobs/{job.id}/").content.decode()
    finally:
        job_kinds.REGISTRY.pop("tests.toy_task")
