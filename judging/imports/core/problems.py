"""Problems found in an imported file, each naming the file, the line and the field at fault; the line reading and
the problem list are the pure ones the TREC readers use (`measures.lines`)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from config.core import strict_json
from measures.lines import LISTED_PROBLEMS, Problem, Problems, Progress, numbered_lines

__all__ = ["LISTED_PROBLEMS", "ImportFailed", "Problem", "Problems", "Progress", "limit", "numbered_lines"]

# Outside a configured Django (the command-line tools): the defaults of settings.WORKBENCH_LIMITS.
DEFAULT_LIMITS = {
    "line_bytes": 10_000,
    "record_bytes": 4 << 20,
    "topics_per_file": 20_000,
    "documents_per_file": 2_000_000,
}
_CONFIGURED: dict[str, int] = {}


def limits_configure(limits: dict) -> None:
    """Takes the deployment's limits (settings.WORKBENCH_LIMITS): the judging app gives them as Django starts and
    whenever the setting changes, so this pure module never reads Django's settings itself."""
    _CONFIGURED.clear()
    _CONFIGURED.update({name: value for name, value in limits.items() if name in DEFAULT_LIMITS})


def limit(name: str) -> int:
    """A configured limit (`limits_configure`), or its default (the command-line tools, which run without Django)."""
    return _CONFIGURED.get(name, DEFAULT_LIMITS[name])


class ImportFailed(ValueError):
    """An import found problems and wrote nothing. `problems` lists the first hundred; `count` counts them all."""

    def __init__(self, problems: Problems):
        self.problems, self.count = problems.listed, problems.count
        noun = "problem" if self.count == 1 else "problems"
        super().__init__(f"{self.count} {noun}; nothing was imported.\n{problems.summary()}")


def json_objects(
    path: str | Path, problems: Problems, *, name: str, progress: Progress | None = None
) -> Iterator[tuple[int, dict]]:
    """Yields (line number, object) for a JSONL file; blank lines are skipped, anything but a JSON object per line
    is a problem."""
    for number, text in numbered_lines(path, problems, name=name, max_bytes=limit("record_bytes"), progress=progress):
        value = json_object(text, number, problems, name=name)
        if value is not None:
            yield number, value


def json_object(text: str, number: int, problems: Problems, *, name: str) -> dict | None:
    """One JSONL line's object, or None: blank (skipped), or a problem added for it."""
    if not text.strip():
        return None
    try:
        return strict_json.record(text)
    except strict_json.RecordError as error:
        problems.add(name, number, error.key, error.reason)
        return None


def first_key(value: dict, names: tuple[str, ...]) -> str | None:
    """The first of `names` that `value` has (JSONL files name the same field in several ways)."""
    return next((key for key in names if key in value), None)
