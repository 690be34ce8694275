"""How the command-line tools report bad input: one line on standard error, exit status 2."""

from __future__ import annotations

import sys

INPUT_ERROR = 2


def reported(error: Exception, hint: str = "") -> int:
    """Prints `error: ...` (a file that cannot be read by its name and the system's reason) and returns 2."""
    text = f"{error.filename}: {error.strerror}" if isinstance(error, OSError) else str(error)
    print(f"error: {text}{hint}", file=sys.stderr)
    return INPUT_ERROR
