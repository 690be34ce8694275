"""Every model reply kept on disk by (configuration, prompt version, topic, document): a rerun, a crash or a killed
worker never pays for a pair twice. One small JSON file a pair, written atomically (a temporary file renamed)."""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path


class ReplyCache:
    def __init__(self, folder: str | Path | None):
        self.folder = Path(folder) if folder else None
        if self.folder:
            self.folder.mkdir(parents=True, exist_ok=True)

    @staticmethod
    def key(identity: dict, prompt_version: str, topic: str, docno: str) -> str:
        text = json.dumps([identity, prompt_version, topic, docno], sort_keys=True)
        return hashlib.sha256(text.encode()).hexdigest()

    def get(self, key: str) -> dict | None:
        if not self.folder:
            return None
        path = self.folder / f"{key}.json"
        try:
            return json.loads(path.read_text())
        except (FileNotFoundError, ValueError):
            return None

    def put(self, key: str, value: dict) -> None:
        if not self.folder:
            return
        handle, temporary = tempfile.mkstemp(dir=self.folder, suffix=".part")
        with os.fdopen(handle, "w") as out:
            json.dump(value, out)
        os.replace(temporary, self.folder / f"{key}.json")
