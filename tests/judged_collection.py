"""A judged collection shared by the results tests (also the browser's): two assessors who disagree, unjudged pooled
documents."""

from __future__ import annotations

from evaluation import services as evaluation_services
from judging import services
from tests.factories import make_collection, make_user

# Our measure names and trec_eval's.
MEASURES = {"P@5": "P_5", "AP": "map", "nDCG": "ndcg", "RR": "recip_rank", "Rprec": "Rprec", "Bpref": "bpref"}


def make_judged_collection(*, topics: int = 3, runs: int = 3):
    """Two assessors grading a 0-3 collection, disagreeing on some documents and leaving a quarter unjudged; the
    collection-wide agreement is computed (the sweep's job, seconds later, in a live system)."""
    collection = make_collection(max_grade=3, topics=topics, documents=14, runs=runs, depth=8, measures=list(MEASURES))
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
    evaluation_services.collection_agreement_recompute(collection_id=collection.id)
    return collection, a, b
