"""A feature's settings of a collection live in the feature's own row, are read through the feature's selector (the
defaults while the row is missing) and written through the collection's one settings service."""

from __future__ import annotations

import pytest
from django.core.exceptions import ValidationError
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.test.utils import CaptureQueriesContext

from judging import plugins, services, signals
from judging.machines import selectors as verifying
from judging.machines import services as machine_judges
from judging.models import Collection
from judging.preferences import selectors as preferring
from judging.quality import selectors as checking
from judging.quality.models import QualitySettings
from tests.factories import make_collection

pytestmark = pytest.mark.django_db


def test_a_collection_without_feature_rows_reads_each_features_defaults():
    collection = Collection.objects.create(name="bare")
    quality = checking.quality_settings(collection)
    assert (quality.pause_below, quality.pause_window, quality.gold_rate, quality.repeat_rate) == (None, 20, 0.0, 0.0)
    assert not checking.checks_on(collection) and not checking.pausing(collection)
    assert not preferring.by_preferences(collection)
    assert verifying.verified_judge_id(collection) is None and not verifying.post_editing(collection)
    assert not QualitySettings.objects.exists()  # reading makes no row


def test_the_settings_service_hands_each_feature_its_names_and_announces_what_changed():
    collection = make_collection(topics=1)
    judge = machine_judges.machine_judge_create(collection=collection, name="bm25", provider="lexical")
    changed_names: set[str] = set()

    def heard(sender, *, changed: frozenset, **kwargs):
        changed_names.update(changed)

    signals.collection_changed.connect(heard, dispatch_uid="test-feature-settings")
    try:
        services.collection_settings_update(
            collection=collection, gold_rate=0.2, judging_mode="preferences", preference_top=2,
            verification_judge=judge.pk, verification_mode="post_edit", blind=False,
        )  # fmt: skip
    finally:
        signals.collection_changed.disconnect(dispatch_uid="test-feature-settings")
    fresh = Collection.objects.get(pk=collection.pk)
    assert checking.quality_settings(fresh).gold_rate == 0.2 and checking.checks_on(fresh)
    assert preferring.by_preferences(fresh) and preferring.preference_settings(fresh).preference_top == 2
    assert verifying.verified_judge_id(fresh) == judge.pk and verifying.post_editing(fresh)
    assert fresh.blind is False
    expected = {"gold_rate", "judging_mode", "preference_top", "verification_judge", "verification_mode", "blind"}
    assert changed_names == expected
    assert plugins.settings_read(collection=fresh)["verification_judge"] == judge.pk


def test_a_bad_feature_setting_names_its_field_and_saves_nothing():
    collection = make_collection(topics=1)
    with pytest.raises(ValidationError) as refused:
        services.collection_settings_update(collection=collection, blind=False, gold_rate=0.9)
    assert "gold_rate" in refused.value.message_dict
    fresh = Collection.objects.get(pk=collection.pk)
    assert fresh.blind is True and checking.quality_settings(fresh).gold_rate == 0.0
    with pytest.raises(ValidationError) as unknown:
        services.collection_settings_update(collection=collection, gold_ratio=0.1)
    assert "gold_ratio" in unknown.value.message_dict
    with pytest.raises(ValidationError) as foreign:
        other = make_collection(topics=1)
        judge = machine_judges.machine_judge_create(collection=other, name="bm25", provider="lexical")
        services.collection_settings_update(collection=collection, verification_judge=judge.pk)
    assert "verification_judge" in foreign.value.message_dict


def test_a_page_reads_its_collections_feature_settings_in_the_same_query():
    collection = make_collection(topics=1, gold_rate=0.1, judging_mode="preferences")
    fetched = plugins.with_settings(Collection.objects.all()).get(pk=collection.pk)
    with CaptureQueriesContext(connection) as queries:
        assert checking.checks_on(fetched) and preferring.by_preferences(fetched)
        assert verifying.verified_judge_id(fetched) is None
    assert len(queries) == 0


@pytest.mark.django_db(transaction=True)
def test_the_migration_moves_each_collections_settings_into_its_features_rows():
    executor = MigrationExecutor(connection)
    executor.migrate([("judging", "0034_machine_reply_run_job")])
    old = executor.loader.project_state([("judging", "0034_machine_reply_run_job")]).apps
    OldCollection, OldJudge = old.get_model("judging", "Collection"), old.get_model("judging", "MachineJudge")
    User = old.get_model("auth", "User")
    strict = OldCollection.objects.create(name="strict", pause_below=0.6, pause_window=10, gold_rate=0.1,
                                          repeat_rate=0.2, judging_mode="preferences", preference_top=4)  # fmt: skip
    judge = OldJudge.objects.create(collection=strict, name="bm25", account=User.objects.create(username="m"),
                                    provider="lexical")  # fmt: skip
    OldCollection.objects.filter(pk=strict.pk).update(verification_judge=judge, verification_mode="post_edit")
    plain = OldCollection.objects.create(name="plain")
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(executor.loader.graph.leaf_nodes())
    strict, plain = Collection.objects.get(name="strict"), Collection.objects.get(name="plain")
    quality = checking.quality_settings(strict)
    assert (quality.pause_below, quality.pause_window, quality.gold_rate, quality.repeat_rate) == (0.6, 10, 0.1, 0.2)
    assert preferring.by_preferences(strict) and preferring.preference_settings(strict).preference_top == 4
    assert verifying.verified_judge_id(strict) == judge.pk and verifying.post_editing(strict)
    assert not checking.checks_on(plain) and not preferring.by_preferences(plain)
