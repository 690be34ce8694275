"""A hash table from 64-bit keys to rows, every operation done on whole arrays of keys.

Open addressing with linear probing, kept at most half full: a lookup reads one slot per key, plus a few more for
the keys whose home slot is taken, so finding a file's hundred thousand docnos costs a few array reads instead of the
sort a sorted table needs.
"""

from __future__ import annotations

import numpy as np

_EMPTY = np.uint64(0)  # no key is stored as 0: see _stored


class HashIndex:
    def __init__(self):
        self._keys = np.zeros(16, dtype=np.uint64)
        self._rows = np.zeros(16, dtype=np.int64)
        self._count = 0

    def __len__(self) -> int:
        return self._count

    def find(self, keys: np.ndarray) -> np.ndarray:
        """The row stored under each key, or -1."""
        keys = _stored(keys)
        result = np.full(len(keys), -1, dtype=np.int64)
        pending = np.arange(len(keys))
        slots = self._home(keys)
        while len(pending):
            held = self._keys[slots]
            found = held == keys[pending]
            result[pending[found]] = self._rows[slots[found]]
            probing = ~found & (held != _EMPTY)
            pending, slots = pending[probing], (slots[probing] + 1) & (len(self._keys) - 1)
        return result

    def add(self, keys: np.ndarray, rows: np.ndarray) -> None:
        """Stores rows under keys not stored yet. A key given twice is stored once, with either row: callers check
        what a key finds, so a lost row only sends its pair the slow way."""
        if 2 * (self._count + len(keys)) > len(self._keys):
            capacity = len(self._keys)
            while 2 * (self._count + len(keys)) > capacity:
                capacity *= 2
            used = self._keys != _EMPTY
            old_keys, old_rows = self._keys[used], self._rows[used]
            self._keys = np.zeros(capacity, dtype=np.uint64)
            self._rows = np.zeros(capacity, dtype=np.int64)
            self._place(old_keys, old_rows)
        self._place(_stored(keys), np.asarray(rows, dtype=np.int64))
        self._count = int(np.count_nonzero(self._keys != _EMPTY))

    def _home(self, keys: np.ndarray) -> np.ndarray:
        bits = len(self._keys).bit_length() - 1
        return (_mixed(keys) >> np.uint64(64 - bits)).astype(np.intp)

    def _place(self, keys: np.ndarray, rows: np.ndarray) -> None:
        pending = np.arange(len(keys))
        slots = self._home(keys)
        while len(pending):
            free = np.flatnonzero(self._keys[slots] == _EMPTY)
            self._keys[slots[free]] = keys[pending[free]]  # of several keys wanting one slot, one write lands
            winners = free[self._keys[slots[free]] == keys[pending[free]]]  # one key per slot (or its copies)
            self._rows[slots[winners]] = rows[pending[winners]]
            waiting = np.ones(len(pending), dtype=bool)
            waiting[winners] = False
            pending, slots = pending[waiting], (slots[waiting] + 1) & (len(self._keys) - 1)


def _mixed(keys: np.ndarray) -> np.ndarray:
    """MurmurHash3's 64-bit finaliser: every input bit moves every output bit. Hashes of similar strings (docnos
    differ in a digit or two) share long runs of bits, and linear probing turns shared home slots into long scans."""
    mixed = keys ^ (keys >> np.uint64(33))
    mixed *= np.uint64(0xFF51AFD7ED558CCD)
    mixed ^= mixed >> np.uint64(33)
    mixed *= np.uint64(0xC4CEB9FE1A85EC53)
    mixed ^= mixed >> np.uint64(33)
    return mixed


def _stored(keys: np.ndarray) -> np.ndarray:
    """Keys as stored: 0 marks an empty slot, so a key of 0 is stored as 1 (callers verify what a key finds)."""
    return np.maximum(np.asarray(keys, dtype=np.uint64), np.uint64(1))
