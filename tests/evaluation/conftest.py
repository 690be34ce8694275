"""A judged collection shared by the results tests: two assessors who disagree, unjudged pooled documents."""

from __future__ import annotations

import pytest

from evaluation import services as evaluation_services
from judging import services

from ..factories import make_collection, make_user

# Our measure names and trec_eval's.
MEASURES = {"P@5": "P_5", "AP": "map", "nDCG": "ndcg", "RR": "recip_rank", "Rprec": "Rprec", "Bpref": "bpref"}


@pytest.fixture
def judged():
    """Two assessors disagreeing on some documents of a graded collection with ties in the runs' scores."""
    collection = make_collection(max_grade=3, topics=3, documents=14, runs=3, depth=8, measures=list(MEASURES))
    a, b = make_user("assessor"), make_user("assessor")
    for shift, topic in enumerate(collection.topics.order_by("id")):
        services.assignment_create(assessor=a, topic=topic)
        services.assignment_create(assessor=b, topic=topic)
        for i, item in enumerate(topic.pool_items.order_by("id")):
            if i % 4 == 3:
                continue  # some pooled documents stay unjudged
            services.judgment_record(
                assessor=a, topic=topic, document=item.document, grade=(i * 7 + shift) % 4, note=f"n{i}"
            )
            if i % 2 == 0:
                services.judgment_record(assessor=b, topic=topic, document=item.document, grade=(i * 5 + 2 * shift) % 4)
    evaluation_services.collection_agreement_recompute(collection_id=collection.id)  # else the sweep's, seconds later
    return collection, a, b
