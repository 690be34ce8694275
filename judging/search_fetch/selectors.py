"""Reads of search endpoints and snapshots: the endpoints and their snapshots; a test query (the rendered request
and the mapped results, recording nothing); and two snapshots' overlap with no judgment (Jaccard of the top k, RBO
at p = 0.9), per topic, with the documents that entered or left the top k and whether people judged them. The
judged measures and their paired significance per topic are the results' comparison of the two runs."""

from __future__ import annotations

import contextlib
import time

from config.core import outbound
from config.core.secrets import header_secrets, masked_everywhere
from judging import selectors as judging_selectors
from judging.models import Collection, Document, Topic
from judging.search_fetch.configs import auth_headers, checked, endpoint_of, policy_of
from judging.search_fetch.core.engines import ENGINES
from judging.search_fetch.core.fetch import Fetcher
from judging.search_fetch.models import SearchEndpoint, SearchSnapshot
from judging.sources import selectors as sources
from measures.overlap import jaccard, rbo

TRY_DEPTH = 10
RBO_P = 0.9


def endpoints(*, collection: Collection) -> list[SearchEndpoint]:
    return list(SearchEndpoint.objects.filter(collection=collection).order_by("name"))


def snapshots(*, collection: Collection) -> list[SearchSnapshot]:
    return list(SearchSnapshot.objects.filter(endpoint__collection=collection).select_related("endpoint", "run"))


def query_tried(*, endpoint: SearchEndpoint, query: str, variables: dict | None = None) -> dict:
    """One query sent as the endpoint would send it (its first page, at most TRY_DEPTH hits, no retry), recording
    nothing: {"request", "hits": [{"docno", "score", "title", "known"}], "failure", "seconds", "total"}. The
    endpoint may be unsaved: it is checked first (ValidationError naming the field)."""
    checked(endpoint)
    values = {**{k: str(v) for k, v in endpoint.variables.items()}, **(variables or {}),
              "query": query, "description": "", "narrative": ""}  # fmt: skip
    shown = ENGINES[endpoint.engine].request(endpoint_of(endpoint), values, 0, TRY_DEPTH).shown()
    policy = policy_of(endpoint, depth=TRY_DEPTH, page_size=TRY_DEPTH, retries=0, concurrency=1, rate=None)
    started = time.monotonic()
    client = outbound.outbound_client(connections=1, ca_bundle=endpoint.ca_bundle or None)
    headers = auth_headers(endpoint)
    with contextlib.closing(client):
        (result,) = Fetcher(client, endpoint_of(endpoint), policy, headers=headers).fetch([("try", values)])
    secrets = header_secrets(headers)  # an engine that echoes the credential never shows it here either
    known = set()
    if endpoint.collection_id:
        docnos = [hit.docid for hit in result.hits]
        known = set(Document.objects.filter(collection_id=endpoint.collection_id, docno__in=docnos)
                    .values_list("docno", flat=True))  # fmt: skip
    return masked_everywhere(
        {
            "request": shown,
            "hits": [
                {"docno": h.docid, "score": h.score, "title": h.fields.get("title", ""), "known": h.docid in known}
                for h in result.hits
            ],
            "failure": result.failure,
            "seconds": round(time.monotonic() - started, 3),
        },
        secrets,
    )


def snapshot_comparison(*, before: SearchSnapshot, after: SearchSnapshot, k: int = 10) -> dict:
    """Per topic both fetched: Jaccard@k and RBO (p 0.9, over the top k) of the two rankings, the documents that
    entered or left the top k with whether they are judged (`sources.judged`); and their means over those topics."""
    collection = before.endpoint.collection
    first = judging_selectors.topic_rankings_by_run(run_id=before.run_id)
    second = judging_selectors.topic_rankings_by_run(run_id=after.run_id)
    shared = sorted(set(first) & set(second))
    numbers = dict(Topic.objects.filter(pk__in=set(first) | set(second)).values_list("id", "number"))
    judged = sources.judged_items(collection=collection, topic_ids=shared)
    wanted = {int(d) for t in shared for d in (*first[t][:k], *second[t][:k])}
    docnos = dict(Document.objects.filter(pk__in=wanted).values_list("id", "docno"))
    rows = []
    for topic in shared:
        a, b = [int(d) for d in first[topic][:k]], [int(d) for d in second[topic][:k]]
        entered = [d for d in b if d not in set(a)]
        left = [d for d in a if d not in set(b)]
        rows.append({
            "topic": numbers.get(topic, str(topic)),
            "jaccard": jaccard(a, b), "rbo": rbo(a, b, p=RBO_P),
            "entered": [{"docno": docnos[d], "judged": (topic, d) in judged} for d in entered],
            "left": [{"docno": docnos[d], "judged": (topic, d) in judged} for d in left],
        })  # fmt: skip
    rows.sort(key=lambda row: row["rbo"])
    mean = lambda key: sum(r[key] for r in rows) / len(rows) if rows else None  # noqa: E731
    unjudged = sum(1 for r in rows for e in r["entered"] if not e["judged"])
    only_before = sorted(numbers.get(t, str(t)) for t in set(first) - set(second))
    only_after = sorted(numbers.get(t, str(t)) for t in set(second) - set(first))
    return {"k": k, "p": RBO_P, "topics": rows, "jaccard": mean("jaccard"), "rbo": mean("rbo"),
            "unjudged_entered": unjudged, "only_before": only_before, "only_after": only_after}  # fmt: skip
