"""List columns: what is written is read back exactly, on SQLite (JSON text) and PostgreSQL (arrays written as
the text literal the field builds)."""

import math

import pytest

from evaluation.fields import array_literal
from evaluation.models import RunAggregates, TopicValues
from tests.factories import make_collection

pytestmark = pytest.mark.django_db

AWKWARD_TEXT = ["plain", 'a "quoted" word', "back\\slash", "", "NULL", "with,comma", "{brace}", " spaced ", None]
AWKWARD_FLOATS = [0.1, 1 / 3, 5e-324, -0.0, 1e300, math.inf, -math.inf, None, 2.0**-1074, 0.30000000000000004]


def test_array_literal_is_postgresql_text_form():
    assert array_literal([0.25, None, 1], "double precision") == "{0.25,NULL,1.0}"
    assert array_literal([3, 1], "bigint") == "{3,1}"
    assert array_literal([], "integer") == "{}"
    assert array_literal(["ab<<3", "0"], "text") == '{"ab<<3","0"}'
    assert array_literal(['a"b', "c\\d", None], "text") == '{"a\\"b","c\\\\d",NULL}'


def test_every_list_value_is_read_back_exactly():
    collection = make_collection()
    topic = collection.topics.first()
    TopicValues.objects.create(
        topic=topic, measure="AP", runs=list(range(len(AWKWARD_FLOATS))), values=AWKWARD_FLOATS, generation=1
    )
    RunAggregates.objects.create(
        collection=collection, measure="AP", runs=[], values=[], topics=[0, 7], defined=[0, None], totals=AWKWARD_TEXT
    )
    values = TopicValues.objects.get(topic=topic).values
    assert [repr(v) for v in values] == [repr(v) for v in AWKWARD_FLOATS]  # bit for bit, -0.0 and infinities too
    row = RunAggregates.objects.get(collection=collection)
    assert (row.runs, row.values, row.topics, row.defined, row.totals) == ([], [], [0, 7], [0, None], AWKWARD_TEXT)
