"""Finding the label of every ranked document of a batch: the label matrix the measures read.

Four ways, by the shape of the work:

- a run set evaluated again and again (a worker's prepared rankings): each cell reads its label from an array of
  the run set's distinct keys, labelled afresh from the qrels on every evaluation;
- few cells: each cell's (topic << 32 | doc) key is searched in the qrels;
- many cells, each document id ranked under one topic (files give every (topic, docno) its own id): a table
  indexed by document id holds its label for that topic, and every cell of the run set is labelled by one read,
  no topic compared;
- many cells, document ids dense: a table indexed by document id holds each judged document's topic and label, so
  a cell's label is one array read. Files give every (topic, docno) its own id, so there no document is judged for
  two topics; where one is (database ids), its cells fall back to the search;
- many cells, ids sparse: every qrels entry is placed in the run set's sorted key index once, labelling every cell
  in its key's range (several runs retrieve the same document).
"""

from __future__ import annotations

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from measures.data import NONPOOL, PAD, UNJUDGED, PreparedQrels, cell_index
from measures.runset import RunSet

# Above this many evaluated cells per qrels entry, labels are placed once for the whole run set ...
INDEX_LOOKUP_RATIO = 8
# ... by the document table when ids are at most this many times the cells (else by the sorted key index).
DOC_TABLE_RATIO = 4
_SHARED = -1  # in the document table's topic half: the document is judged for several topics
_NO_TOPIC = -2  # ... for none


def label_code(labels: np.ndarray) -> np.ndarray:
    return np.where(labels >= 0, labels, UNJUDGED).astype(np.int32)


def _labels_of_scoped_docs(qrels: PreparedQrels, topic_of_doc: np.ndarray) -> np.ndarray:
    """Indexed by document id: its label code for the one topic it is ranked under, NONPOOL if not judged for it."""
    docs = qrels.docs
    entry_topic = np.repeat(qrels.topics, np.diff(qrels.offsets))
    ranked = (docs >= 0) & (docs < len(topic_of_doc))
    ranked[ranked] = topic_of_doc[docs[ranked]] == entry_topic[ranked]
    labels = np.full(len(topic_of_doc), NONPOOL, dtype=np.int32)
    labels[docs[ranked]] = label_code(qrels.labels[ranked])
    return labels


def _back_to_back(starts: np.ndarray, lengths: np.ndarray, width: int) -> bool:
    return bool(len(starts)) and bool((lengths == width).all()) and bool((np.diff(starts) == width).all())


class Labeller:
    def __init__(self, qrels: PreparedQrels, runset: RunSet, cells: int):
        self.qrels, self.runset = qrels, runset
        self.all_labels = self.by_doc = None
        if len(qrels.keys) and runset.reused:
            distinct, cell_key = runset.distinct_cells
            found = np.minimum(np.searchsorted(distinct, qrels.keys), max(len(distinct) - 1, 0))
            hit = distinct[found] == qrels.keys if len(distinct) else np.zeros(len(qrels.keys), bool)
            label_of_key = np.full(len(distinct) + 1, NONPOOL, dtype=np.int32)  # the last one: padding cells
            label_of_key[found[hit]] = label_code(qrels.labels[hit])
            self.all_labels = label_of_key[cell_key]
            return
        if not len(qrels.keys) or cells <= INDEX_LOOKUP_RATIO * len(qrels.keys):
            return
        if (topic_of_doc := runset.topic_of_doc) is not None:
            self.all_labels = _labels_of_scoped_docs(qrels, topic_of_doc)[runset.padded_docs]
            return
        low, high = runset.doc_range
        self.first_doc = min(low, int(qrels.docs.min()))  # database ids of one collection start anywhere
        table_size = max(high, int(qrels.docs.max())) - self.first_doc + 1
        if table_size <= DOC_TABLE_RATIO * cells:
            # One int64 per document, topic << 32 | label code: a cell costs one random read, not two.
            judged = qrels.docs - self.first_doc
            topic = np.full(table_size, _NO_TOPIC, dtype=np.int64)
            topic[judged] = np.repeat(qrels.topics, np.diff(qrels.offsets))
            topic[np.bincount(judged, minlength=table_size) > 1] = _SHARED
            code = np.full(table_size, NONPOOL, dtype=np.int64)
            code[judged] = label_code(qrels.labels)
            self.by_doc = (topic << 32) | (code & 0xFFFFFFFF)
            return
        sorted_keys, order = runset.key_index
        first = np.searchsorted(sorted_keys, qrels.keys, side="left")
        count = np.searchsorted(sorted_keys, qrels.keys, side="right") - first
        self.all_labels = np.full(len(runset.docs) + runset.longest, NONPOOL, dtype=np.int32)
        self.all_labels[order[cell_index(first, count)]] = np.repeat(label_code(qrels.labels), count)

    def matrix(self, starts: np.ndarray, lengths: np.ndarray, topics: np.ndarray) -> np.ndarray:
        """(rows x longest length) labels of the rows docs[start:start + length] (of the given topics), PAD after
        each row's end."""
        width = max(int(lengths.max()) if len(lengths) else 0, 1)
        if self.all_labels is not None and _back_to_back(starts, lengths, width):
            # Full rows laid out one after the other (a chunk of same-length rankings): the labels already are the
            # matrix, read as it (callers never write into it).
            first = int(starts[0])
            return self.all_labels[first : first + len(starts) * width].reshape(len(starts), width)
        if self.all_labels is not None:
            labels = sliding_window_view(self.all_labels, width)[starts]
        else:
            docs = sliding_window_view(self.runset.padded_docs, width)[starts]  # one row copy per ranking
            labels = self._search(docs, topics[:, None]) if self.by_doc is None else self._from_table(docs, topics)
        if (lengths < width).any():
            labels[np.arange(width) >= lengths[:, None]] = PAD
        return labels

    def _from_table(self, docs: np.ndarray, topics: np.ndarray) -> np.ndarray:
        entry = self.by_doc[docs - self.first_doc]
        owner = entry >> 32
        labels = np.where(owner == topics[:, None], entry.astype(np.int32), NONPOOL)  # low 32 bits: the code
        shared = np.nonzero(owner == _SHARED)
        if len(shared[0]):
            labels[shared] = self._search(docs[shared], topics[shared[0]])
        return labels

    def _search(self, docs: np.ndarray, topics: np.ndarray) -> np.ndarray:
        labels = np.full(docs.shape, NONPOOL, dtype=np.int32)
        keys = self.qrels.keys
        if len(keys) and docs.size:
            wanted = (topics << 32) | docs
            found = np.minimum(np.searchsorted(keys, wanted), len(keys) - 1)
            hit = keys[found] == wanted
            labels[hit] = label_code(self.qrels.labels[found[hit]])
        return labels
