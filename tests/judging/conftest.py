"""Fixtures the judging tests share."""

from __future__ import annotations

import pytest

from judging import services
from tests.factories import make_collection, make_user


@pytest.fixture
def campaign():
    collection = make_collection(max_grade=3, topics=3, documents=12, runs=3, depth=6)
    assessor = make_user("assessor")
    for topic in collection.topics.all():
        services.assignment_create(assessor=assessor, topic=topic)
    return collection, assessor
