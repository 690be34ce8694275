"""How the command line's process asks the C allocator to treat memory it frees."""

from __future__ import annotations

import ctypes

# glibc's mallopt parameters (malloc.h)
M_TRIM_THRESHOLD = -1
M_MMAP_THRESHOLD = -3
KEPT_BYTES = 1 << 30


def keep_freed_memory() -> bool:
    """Keeps the memory the process frees for its next allocations instead of handing it back to the kernel.

    Reading run files allocates and frees arrays of a few megabytes each, file after file. By default glibc maps
    each with mmap and unmaps it when freed, so the next file's arrays fault in fresh pages: on the tied-score
    benchmark that was a quarter of the process's time, spent in the kernel. A short-lived command can keep them.
    Called once at the start of `python -m evaluation`, never in a long-lived process (the web app, a worker),
    whose freed memory should go back. True when the allocator took both settings; False where there is no
    glibc mallopt (musl, macOS), which changes nothing else."""
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):
        return False
    mallopt.argtypes = (ctypes.c_int, ctypes.c_int)
    # The mmap threshold first: setting either one stops glibc's own adjustment of both.
    took_mmap = mallopt(M_MMAP_THRESHOLD, KEPT_BYTES // 2)
    return bool(mallopt(M_TRIM_THRESHOLD, KEPT_BYTES) and took_mmap)
