"""The docno hash table finds every stored key's row and nothing for keys never stored, however keys arrive."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from evaluation.measures.hash_index import HashIndex

_KEYS = st.integers(min_value=2, max_value=2**64 - 1)  # 0 and 1 share a slot: see the last test


@settings(max_examples=150, deadline=None)
@given(st.lists(st.lists(_KEYS, max_size=300), max_size=6), st.lists(_KEYS, max_size=50))
def test_stored_keys_find_their_rows_and_others_find_none(batches, probes):
    index, stored = HashIndex(), {}
    for batch in batches:
        new = [key for key in dict.fromkeys(batch) if key not in stored]
        index.add(np.array(new, dtype=np.uint64), np.arange(len(stored), len(stored) + len(new)))
        stored.update({key: len(stored) + i for i, key in enumerate(new)})
        assert len(index) == len(stored)
        keys = list(stored) + probes
        found = index.find(np.array(keys, dtype=np.uint64)).tolist()
        expected = [stored.get(key, -1) for key in keys]
        assert found == expected


def test_keys_crowding_one_slot_are_all_found_after_growing():
    index = HashIndex()
    keys = np.arange(1, 5001, dtype=np.uint64) << np.uint64(40)  # differ only in middle bits
    for part in np.array_split(np.arange(len(keys)), 7):
        index.add(keys[part], part)
    assert index.find(keys).tolist() == list(range(len(keys)))
    assert (index.find(keys + np.uint64(1)) == -1).all()


def test_a_key_of_zero_is_stored_as_one_and_verified_by_the_caller():
    """0 marks an empty slot, so keys 0 and 1 are one key to the table; its callers compare the bytes a key finds."""
    index = HashIndex()
    index.add(np.array([0], dtype=np.uint64), np.array([7]))
    assert index.find(np.array([0, 1, 2], dtype=np.uint64)).tolist() == [7, 7, -1]


def test_a_key_given_twice_in_one_call_is_stored_once_with_either_row():
    index = HashIndex()
    index.add(np.array([5, 5, 9], dtype=np.uint64), np.array([0, 1, 2]))
    assert len(index) == 2
    assert index.find(np.array([5], dtype=np.uint64)).tolist()[0] in (0, 1)
    assert index.find(np.array([9], dtype=np.uint64)).tolist() == [2]
