"""Document ids: one per (topic, docno), the same pairs the same ids however the lines arrive."""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from measures.vocabulary import LINES_PER_BLOCK, DocumentVocabulary, _topic_spans


def _pairs(rng, topics=4, per_topic=3 * LINES_PER_BLOCK):
    """Run-file lines: each topic's block in turn, docnos shared between topics (d0 under topic 0 and 1 are two
    documents), a few topics split into two blocks as concatenated run files have them."""
    lines = [(t, f"d{i}") for t in range(topics) for i in rng.permutation(per_topic)]
    return lines + [(1, f"e{i}") for i in range(LINES_PER_BLOCK)]  # topic 1 again, after topic 3


def _ids(vocabulary, lines):
    topics = np.array([t for t, _ in lines], dtype=np.int64)
    return vocabulary.ids(topics, pa.array([d for _, d in lines], pa.string()))


def test_topics_in_long_blocks_and_shuffled_lines_name_the_same_documents():
    rng = np.random.default_rng(5)
    lines = _pairs(rng)
    shuffled = [lines[i] for i in rng.permutation(len(lines))]
    blocks_topics = np.array([t for t, _ in lines])
    assert _topic_spans(blocks_topics)[0] is None  # read by blocks ...
    assert _topic_spans(np.array([t for t, _ in shuffled]))[0] is not None  # ... and by sorting
    known = [(0, "d3"), (3, "d0"), (2, "zz")]
    for order in (lines, shuffled):
        vocabulary = DocumentVocabulary()
        known_ids = _ids(vocabulary, known)
        ids = _ids(vocabulary, order)
        names = vocabulary.names
        assert _ids(vocabulary, known).tolist() == known_ids.tolist()  # a known pair keeps its id
        by_pair = dict(zip(order, ids.tolist(), strict=True))
        assert len(set(by_pair.values())) == len(by_pair)  # distinct pairs, distinct ids
        assert all(names[i] == docno for (_, docno), i in by_pair.items())
        assert by_pair[(0, "d3")] == known_ids[0] and by_pair[(3, "d0")] == known_ids[1]
        assert len(vocabulary) == len(by_pair) + 1  # and (2, "zz")


def test_a_pair_repeated_within_a_block_gets_one_id():
    vocabulary = DocumentVocabulary()
    lines = [(7, f"d{i % LINES_PER_BLOCK}") for i in range(2 * LINES_PER_BLOCK)]
    ids = _ids(vocabulary, lines)
    assert ids[:LINES_PER_BLOCK].tolist() == ids[LINES_PER_BLOCK:].tolist()
    assert len(vocabulary) == LINES_PER_BLOCK
