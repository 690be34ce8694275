"""What the export commands share: writing streamed lines to a file (with its
provenance sidecar) or stdout."""

from __future__ import annotations

import json
from pathlib import Path

from tqdm import tqdm


def write_export(command, lines, meta: dict, output: str | None, unit: str) -> None:
    """Writes to `output` (and `output`.provenance.json) with a progress counter on stderr, or to stdout with the
    provenance on stderr; '-' means stdout."""
    if not output or output == "-":
        for line in lines:
            command.stdout.write(line, ending="")
        command.stderr.write(json.dumps(meta))
        return
    path = Path(output)
    with (
        open(path, "w", encoding="utf-8", newline="") as out,
        tqdm(desc="exporting", unit=unit, file=command.stderr, mininterval=0.2) as bar,
    ):
        for line in lines:
            out.write(line)
            bar.update(1)
    sidecar = path.with_name(path.name + ".provenance.json")
    sidecar.write_text(json.dumps(meta, indent=2) + "\n")
    command.stderr.write(f"wrote {path} and {sidecar}")
