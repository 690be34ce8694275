"""Moving columns between numpy and pyarrow without `pyarrow.array()` or `to_numpy()`, which import pandas when it
is installed (a third of a second on every command): arrays are wrapped around their buffers instead."""

from __future__ import annotations

import numpy as np
import pyarrow as pa


def string_array(strings: list[str]) -> pa.Array:
    encoded = [s.encode() for s in strings]
    offsets = np.zeros(len(encoded) + 1, dtype=np.int32)
    np.cumsum(np.fromiter(map(len, encoded), dtype=np.int32, count=len(encoded)), out=offsets[1:])
    return pa.Array.from_buffers(
        pa.string(), len(encoded), [None, pa.py_buffer(offsets), pa.py_buffer(b"".join(encoded))]
    )


def int_array(values: np.ndarray) -> pa.Array:
    values = np.ascontiguousarray(values, dtype=np.int64)
    return pa.Array.from_buffers(pa.int64(), len(values), [None, pa.py_buffer(values)])


def as_numpy(array: pa.Array) -> np.ndarray:
    """A fixed-width column without nulls as a read-only numpy view."""
    if array.null_count:
        raise ValueError("a column with nulls has no plain numpy view")
    dtype = np.dtype(array.type.to_pandas_dtype())
    return np.frombuffer(array.buffers()[1], dtype=dtype, count=len(array) + array.offset)[array.offset :]
