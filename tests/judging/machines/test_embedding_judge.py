"""The offline neural judge (#48, item 8): MiniLM from registry packages, run with no network; its cosine cut into
grades at thresholds fitted on the other topics' people's labels; refused, naming the provider, where this install
has no model; the demo runs it where it can."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
from django.core.exceptions import ValidationError

from judging import services
from judging.machines import providers
from judging.machines import services as machine_judges
from judging.machines.core import embedding
from judging.machines.core.embedding import embedding_labels
from judging.machines.models import MachineReply
from judging.models import Judgment, PoolItem
from tests.factories import make_collection, make_user

ROOT = Path(__file__).resolve().parents[3]

NO_NETWORK = """
import socket
def refused(*args, **kwargs):
    raise OSError("networking is removed in this test")
socket.socket.connect = refused
socket.create_connection = refused
socket.getaddrinfo = refused
"""


def _words_embed(texts):
    """A stand-in model: a text's vector counts the words "cat" and "dog" (and a constant), normalised."""
    rows = [[t.count("cat"), t.count("dog"), 0.1] for t in texts]
    vectors = np.asarray(rows, dtype=np.float64)
    return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)


def test_grades_are_cut_at_thresholds_fitted_on_the_other_topics_labels_only():
    topics = {"1": "cat", "2": "dog"}
    documents = {"a": "cat cat", "b": "dog", "c": "cat dog", "d": "dog dog"}
    pairs = [(t, d) for t in topics for d in documents]
    # People say topic 2's best match is relevant and the rest not; topic 1's own labels are contrary on purpose.
    people = [("2", "d", 1), ("2", "b", 1), ("2", "a", 0), ("2", "c", 0), ("1", "a", 0), ("1", "b", 1)]
    labels = embedding_labels(topics, pairs, documents, people, max_grade=1, embed=_words_embed)
    assert labels[("1", "a")][0] == 1  # topic 2's labels set the cut: topic 1's own "a is not relevant" is unused
    assert labels[("1", "b")][0] == 0
    cosine = labels[("1", "c")][1]
    assert cosine == pytest.approx(float(_words_embed(["cat"])[0] @ _words_embed(["cat dog"])[0]))


def test_a_document_is_embedded_once_however_many_topics_pool_it():
    seen = []

    def counting(texts):
        seen.extend(texts)
        return _words_embed(texts)

    topics = {"1": "cat", "2": "dog", "3": "cat dog"}
    documents = {"a": "cat", "b": "dog"}
    embedding_labels(topics, [(t, d) for t in topics for d in documents], documents, [], max_grade=1, embed=counting)
    assert sorted(seen) == sorted(["cat", "dog", "cat", "dog", "cat dog"])  # two documents, three topics


def test_without_its_packages_the_judge_is_refused_naming_the_provider(monkeypatch):
    monkeypatch.setattr(embedding, "available", lambda: False)
    judge = providers.MachineJudge(provider="embedding")
    with pytest.raises(ValidationError) as refused:
        providers.provider_of(judge).check(judge)
    assert "pip install" in refused.value.message_dict["provider"][0]


@pytest.mark.slow
def test_minilm_loads_and_labels_with_networking_removed():
    script = NO_NETWORK + textwrap.dedent(
        """
        import json
        from judging.machines.core.embedding import MiniLM, embedding_labels
        topics = {"1": "how do I sort a list in python", "2": "read a file line by line"}
        documents = {"s": "sorted(iterable) returns a new sorted list from the items in iterable",
                     "f": "open a file and iterate over it to read each line in turn",
                     "x": "the weather in paris is mild in spring"}
        pairs = [(t, d) for t in topics for d in documents]
        labels = embedding_labels(topics, pairs, documents, [], max_grade=3, embed=MiniLM())
        print(json.dumps({f"{t}{d}": round(v[1], 4) for (t, d), v in labels.items()}))
        """
    )
    done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    cosine = __import__("json").loads(done.stdout)
    assert cosine["1s"] > cosine["1f"] > cosine["1x"] - 0.2  # sorting matches the sort docstring best
    assert cosine["2f"] > cosine["2s"] and cosine["2f"] > cosine["2x"]


@pytest.mark.slow
@pytest.mark.django_db
def test_an_embedding_judge_labels_the_pool_as_an_advisory_assessor():
    collection = make_collection(max_grade=3, topics=2, documents=8, runs=2, depth=5)
    person = make_user("assessor")
    for item in PoolItem.objects.filter(topic__collection=collection).select_related("topic", "document"):
        grade = 3 if item.document.docno in ("d1", "d2") else 0
        services.judgments_record_bulk(labels={(person, item.topic_id, item.document_id): grade})
    judge = machine_judges.machine_judge_create(collection=collection, name="minilm", provider="embedding")
    result = machine_judges.machine_judge_run(judge=judge)
    pooled = PoolItem.objects.filter(topic__collection=collection).count()
    assert (result["labelled"], result["failed"]) == (pooled, 0)
    assert set(Judgment.objects.filter(assessor=judge.account).values_list("grade", flat=True)) <= {0, 1, 2, 3}
    assert MachineReply.objects.filter(judge=judge).first().reply.startswith("cosine ")
