"""A RunSet: several prepared runs laid out topic-major, so one topic's rankings for every run are contiguous.

This is the form the engine evaluates: re-evaluating one topic slices a contiguous block, and a batch of rankings is
read as windows of `padded_docs`. How labels are found for them is `labelling`'s business.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cached_property

import numpy as np

from measures.data import PreparedRun, cell_index

SCOPED_TABLE_RATIO = 4  # a table indexed by document id is kept while ids are at most this many times the cells


class RunSet:
    """Rows are (run, topic) rankings sorted by topic then run; `docs[start[i]:start[i]+length[i]]` is row i."""

    def __init__(self, runs: Sequence[PreparedRun], *, reused: bool = False):
        """`reused`: the run set will be evaluated again and again against changing qrels (a worker's prepared
        rankings), so it is labelled through `distinct_cells`, an index that costs a sort once."""
        self.reused = reused
        tags = [run.tag for run in runs]
        if len(set(tags)) != len(tags):
            raise ValueError(f"run tags must be unique, got {tags}")
        self.tags = tags
        bases = np.concatenate(([0], np.cumsum([len(run.docs) for run in runs]))).astype(np.int64)
        self._lay_out(
            np.concatenate([np.full(len(run.topics), i, np.int64) for i, run in enumerate(runs)] or [[]]),
            np.concatenate([run.topics for run in runs] or [[]]),
            np.concatenate([run.offsets[:-1] + bases[i] for i, run in enumerate(runs)] or [[]]),
            np.concatenate([np.diff(run.offsets) for run in runs] or [[]]),
            np.concatenate([run.docs for run in runs] or [[]]),
        )

    @classmethod
    def combined(cls, parts: Sequence[RunSet], tags: Sequence[str]) -> RunSet:
        """The run set that the rankings of `parts` make together, its runs in the order of `tags` (which name every
        part's runs). The parts' topics must not overlap: a worker's prepared rankings, one run set per topic, make
        a collection's run set without reading a ranking again."""
        topics = np.concatenate([part.topics for part in parts] or [[]])
        if len(np.unique(topics)) != len(topics):
            raise ValueError("the run sets to combine share topics")
        combined = cls.__new__(cls)
        combined.reused, combined.tags = False, list(tags)
        index = {tag: i for i, tag in enumerate(combined.tags)}
        bases = np.concatenate(([0], np.cumsum([len(part.docs) for part in parts]))).astype(np.int64)
        combined._lay_out(
            np.concatenate(
                [np.array([index[tag] for tag in part.tags], np.int64)[part.row_run] for part in parts] or [[]]
            ),
            np.concatenate([part.row_topic for part in parts] or [[]]),
            np.concatenate([part.start + bases[i] for i, part in enumerate(parts)] or [[]]),
            np.concatenate([part.length for part in parts] or [[]]),
            np.concatenate([part.docs for part in parts] or [[]]),
        )
        return combined

    def _lay_out(self, row_run, row_topic, source_start, length, all_docs) -> None:
        """Rows sorted by topic then run, each row's documents gathered in that order from `all_docs`."""
        row_run, row_topic = row_run.astype(np.int64), row_topic.astype(np.int64)
        order = np.lexsort((row_run, row_topic))
        self.row_run, self.row_topic = row_run[order], row_topic[order]
        self.length = length.astype(np.int64)[order]
        self.start = np.concatenate(([0], np.cumsum(self.length)[:-1])).astype(np.int64)
        self.docs = all_docs.astype(np.int64, copy=False)[cell_index(source_start[order].astype(np.int64), self.length)]
        self.topics, self.topic_first_row = np.unique(self.row_topic, return_index=True)

    @cached_property
    def cell_topic(self) -> np.ndarray:
        return np.repeat(self.row_topic, self.length)

    @cached_property
    def longest(self) -> int:
        return int(self.length.max()) if len(self.length) else 0

    @cached_property
    def padded_docs(self) -> np.ndarray:
        """`docs` followed by the longest ranking's length of padding (a document id of the run set, so anything
        indexed by ids takes it), so a window of that width fits at any row."""
        padding = self.doc_range[0] if len(self.docs) else 0
        return np.concatenate((self.docs, np.full(self.longest, padding, dtype=np.int64)))

    @cached_property
    def doc_range(self) -> tuple[int, int]:
        """The smallest and largest document id ranked ((0, -1) if none)."""
        return (int(self.docs.min()), int(self.docs.max())) if len(self.docs) else (0, -1)

    @cached_property
    def topic_of_doc(self) -> np.ndarray | None:
        """Indexed by document id, the one topic the id is ranked under (-1 if none); None when an id is ranked
        under several topics (database ids: a document of the collection) or ids are too sparse for a table. Ids
        from a DocumentVocabulary (files) name a (topic, docno), so their table always exists."""
        low, high = self.doc_range
        if low < 0 or high + 1 > SCOPED_TABLE_RATIO * max(len(self.docs), 1):
            return None
        topic_of_doc = np.full(high + 1, -1, dtype=np.int64)
        topic_of_doc[self.docs] = self.cell_topic
        return topic_of_doc if np.array_equal(topic_of_doc[self.docs], self.cell_topic) else None

    @cached_property
    def key_index(self) -> tuple[np.ndarray, np.ndarray]:
        """(sorted keys, permutation into docs): the (topic << 32 | doc) keys of every cell, sorted."""
        keys = (self.cell_topic << 32) | self.docs
        order = np.argsort(keys)  # equal keys label alike, so stability is not needed (and costs 3x)
        return keys[order], order

    @cached_property
    def distinct_cells(self) -> tuple[np.ndarray, np.ndarray]:
        """(the distinct (topic << 32 | doc) keys of the cells, sorted; each cell's index into them, then the
        longest ranking's length of padding cells indexed one past the keys). Labelling is then one read per cell
        from an array as long as the distinct keys, which several runs' rankings of a topic share."""
        keys = (np.repeat(self.row_topic, self.length) << 32) | self.docs  # cell_topic not kept for this
        distinct, cell_key = np.unique(keys, return_inverse=True)
        padding = np.full(self.longest, len(distinct), dtype=np.int32)
        return distinct, np.concatenate((cell_key.astype(np.int32), padding))

    def rows_of_topics(self, topics: np.ndarray) -> np.ndarray:
        """Indexes of the rows whose topic is in `topics` (a sorted array)."""
        position = np.searchsorted(self.topics, topics)
        present = position < len(self.topics)
        present[present] = self.topics[position[present]] == topics[present]
        position = position[present]
        first = self.topic_first_row[position]
        last = np.append(self.topic_first_row, len(self.row_topic))[position + 1]
        return cell_index(first, last - first)

    def __len__(self) -> int:
        return len(self.tags)
